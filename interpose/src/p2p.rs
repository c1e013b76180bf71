//! Point-to-point calls: sends are issued to MPI at call time, in program
//! order (buffered ones from a private copy, the others on the program's
//! buffer unless a buffered run copies sends, [`crate::state::Lib::copy_sends`]);
//! receives are deferred until the scheduler posts them
//! with a concrete source; probes ask the scheduler which message to
//! report; matched probes are matched as receives, and take the message
//! from MPI once the scheduler names it. A ready send goes to MPI as a standard one: whether its receive
//! was posted first is the engine's judgement. A buffered send is sent from
//! fib's own copy too, but takes its room in the attached buffer, which the
//! library tracks (`MPI_Buffer_attach`, `MPI_Buffer_detach`).

use std::os::raw::{c_int, c_void};

use fib_wire::{Down, Op, SendMode, WaitKind, NO_PROBE};
use mpi_sys::*;

use crate::conn::fatal;
use crate::extents::{check, Need};
use crate::handle::bits;
use crate::held::lib;
use crate::state::{Kind, Persist, Real, RecvReq};
use crate::values::{
    copy_of, put_status, rank_from_wire, rank_to_wire, tag_from_wire, tag_to_wire,
};
use crate::wait::wait_ids;

/// Issues a send. Blocking sends return `None` once they may complete;
/// nonblocking ones return the fake request handed to the program.
#[allow(clippy::too_many_arguments)]
unsafe fn send(
    buf: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    mode: SendMode,
    blocking: bool,
) -> Option<MPI_Request> {
    let mut l = lib();
    crate::check::p2p(&mut l, comm, count, dtype, dest, tag, false);
    crate::sig::report(&mut l, count, dtype, None);
    crate::digest::report(&mut l, buf, count, dtype, comm);
    let cid = l.comm_id(comm);
    let proc_null = dest == RSMPI_PROC_NULL;
    let sync = mode.synchronous(l.zero_buffer);
    // The real send, issued now so that sends reach MPI in program order;
    // with the gate on, once the call has entered (in the order the
    // scheduler entered the threads' calls).
    let bcall = match (blocking, l.starting.is_some()) {
        (true, _) => "MPI_Bsend",
        (false, false) => "MPI_Ibsend",
        (false, true) => "MPI_Start",
    };
    let issue = |l: &mut crate::state::Lib| -> Option<MPI_Request> {
        if proc_null {
            None
        } else if sync {
            let mut req = RSMPI_REQUEST_NULL;
            PMPI_Issend(buf, count, dtype, dest, tag, comm, &mut req);
            Some(req)
        } else if mode != SendMode::Buffered && !l.copy_sends {
            let mut req = RSMPI_REQUEST_NULL;
            PMPI_Isend(buf, count, dtype, dest, tag, comm, &mut req);
            Some(req)
        } else {
            let bsize = if mode == SendMode::Buffered {
                l.bsend_room(count, dtype, comm, bcall)
            } else {
                0
            };
            l.buffered_send(buf, count, dtype, dest, tag, comm, bsize);
            None
        }
    };
    let gated = l.gate.on;
    let mut real = if gated { None } else { issue(&mut l) };
    let call = match (blocking, l.starting.is_some(), mode) {
        (_, true, _) => "MPI_Start",
        (true, _, SendMode::Standard) => "MPI_Send",
        (true, _, SendMode::Sync) => "MPI_Ssend",
        (true, _, SendMode::Buffered) => "MPI_Bsend",
        (true, _, SendMode::Ready) => "MPI_Rsend",
        (false, _, SendMode::Standard) => "MPI_Isend",
        (false, _, SendMode::Sync) => "MPI_Issend",
        (false, _, SendMode::Buffered) => "MPI_Ibsend",
        (false, _, SendMode::Ready) => "MPI_Irsend",
    };
    let (req, handle) = if blocking {
        (None, None)
    } else {
        let kind = match real {
            Some(r) if sync => Kind::Sync(Real::new(r)),
            Some(r) => Kind::Standard(Real::new(r)),
            None => Kind::Nothing,
        };
        let (id, h) = l.new_req(kind);
        (Some(id), Some(h))
    };
    let lent = if crate::memory::instrumented() {
        crate::memory::own(
            req,
            call,
            crate::site::for_call(),
            &crate::owned::data(buf, count, dtype, false),
        )
    } else {
        Vec::new()
    };
    let op = Op::Send {
        mode,
        dest: rank_to_wire(dest),
        tag: tag_to_wire(tag),
        comm: cid,
        req,
    };
    let reply = op.expects_reply(l.zero_buffer);
    for m in lent {
        l.push(m);
    }
    // A recorded run's synchronous send completes in MPI, once its receive
    // takes it, and the engine catches up with it afterwards.
    let recorded = reply && blocking && l.record.is_some();
    l.event_settled(op, recorded);
    if gated {
        real = issue(&mut l);
        if let (Some(id), Some(r)) = (req, real) {
            l.set_kind(
                id,
                if sync {
                    Kind::Sync(Real::new(r))
                } else {
                    Kind::Standard(Real::new(r))
                },
            );
        }
    }
    if blocking {
        if reply && !recorded {
            l.wait_go();
        }
        match real {
            Some(r) if sync => {
                l.spin_request(r);
            }
            Some(r) => l.spin_standard(r),
            None => {}
        }
    }
    handle
}

/// Records a receive and reports it; returns its id, handle, and whether
/// (for a blocking one) it has already completed. A receive with a named
/// source is posted to MPI at once when no receive of the rank waits for
/// the scheduler ([`crate::state::Lib::post_ahead`]); a blocking one is
/// then reported as settled and completes in MPI without the scheduler's
/// answer. Any other receive is deferred until the scheduler posts it.
#[allow(clippy::too_many_arguments)]
unsafe fn recv(
    buf: *mut c_void,
    count: c_int,
    dtype: MPI_Datatype,
    src: c_int,
    tag: c_int,
    comm: MPI_Comm,
    blocking: bool,
) -> (u32, MPI_Request, bool) {
    let mut l = lib();
    crate::check::p2p(&mut l, comm, count, dtype, src, tag, true);
    crate::sig::report(&mut l, count, dtype, None);
    let cid = l.comm_id(comm);
    let proc_null = src == RSMPI_PROC_NULL;
    let starting = l.starting.is_some();
    let real = l.post_ahead(buf, count, dtype, src, tag, comm);
    let posted = real.is_some();
    if !posted && !proc_null {
        l.deferred += 1;
    }
    let (id, h) = l.new_req(Kind::Recv(RecvReq {
        buf,
        count,
        dtype,
        comm,
        proc_null,
        cancelled: false,
        real,
    }));
    if let Some(rec) = l.record.as_mut() {
        rec.keep(id);
        if src == RSMPI_ANY_SOURCE {
            rec.wild.insert(id, comm);
        }
    }
    let lent = if crate::memory::instrumented() {
        let call = match (blocking, starting) {
            (_, true) => "MPI_Start",
            (true, _) => "MPI_Recv",
            (false, _) => "MPI_Irecv",
        };
        crate::memory::own(
            (!blocking).then_some(id),
            call,
            crate::site::for_call(),
            &crate::owned::data(buf, count, dtype, true),
        )
    } else {
        Vec::new()
    };
    for m in lent {
        l.push(m);
    }
    let settled = blocking && posted;
    if posted {
        l.push(fib_wire::Up::Ahead { posted, settled });
    }
    l.event(Op::Recv {
        src: rank_to_wire(src),
        tag: tag_to_wire(tag),
        comm: cid,
        req: id,
        blocking,
    });
    if settled {
        l.settle(&[id]);
    }
    (id, h, settled)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Send(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
) -> c_int {
    check("MPI_Send", &[Need::data(0, buf, count, datatype, false)]);
    send(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Standard,
        true,
    );
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ssend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
) -> c_int {
    check("MPI_Ssend", &[Need::data(0, buf, count, datatype, false)]);
    send(buf, count, datatype, dest, tag, comm, SendMode::Sync, true);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Isend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check("MPI_Isend", &[Need::data(0, buf, count, datatype, false)]);
    crate::check::request_out(&mut lib(), request);
    if let Some(h) = send(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Standard,
        false,
    ) {
        *request = h;
    }
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Issend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check("MPI_Issend", &[Need::data(0, buf, count, datatype, false)]);
    crate::check::request_out(&mut lib(), request);
    if let Some(h) = send(buf, count, datatype, dest, tag, comm, SendMode::Sync, false) {
        *request = h;
    }
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Bsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
) -> c_int {
    check("MPI_Bsend", &[Need::data(0, buf, count, datatype, false)]);
    send(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Buffered,
        true,
    );
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Rsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
) -> c_int {
    check("MPI_Rsend", &[Need::data(0, buf, count, datatype, false)]);
    send(buf, count, datatype, dest, tag, comm, SendMode::Ready, true);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ibsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check("MPI_Ibsend", &[Need::data(0, buf, count, datatype, false)]);
    crate::check::request_out(&mut lib(), request);
    if let Some(h) = send(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Buffered,
        false,
    ) {
        *request = h;
    }
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Irsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check("MPI_Irsend", &[Need::data(0, buf, count, datatype, false)]);
    crate::check::request_out(&mut lib(), request);
    if let Some(h) = send(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Ready,
        false,
    ) {
        *request = h;
    }
    MPI_SUCCESS as c_int
}

/// `MPI_Buffer_attach`: passed to MPI, and its size kept for the checks of
/// the buffered sends.
#[no_mangle]
pub unsafe extern "C" fn MPI_Buffer_attach(buffer: *mut c_void, size: c_int) -> c_int {
    let rc = PMPI_Buffer_attach(buffer, size);
    if rc == MPI_SUCCESS as c_int {
        lib().attached = size.max(0) as usize;
    }
    rc
}

/// `MPI_Buffer_detach`: passed to MPI; no buffer is attached after it.
#[no_mangle]
pub unsafe extern "C" fn MPI_Buffer_detach(buffer_addr: *mut c_void, size: *mut c_int) -> c_int {
    let rc = PMPI_Buffer_detach(buffer_addr, size);
    if rc == MPI_SUCCESS as c_int {
        lib().buffer_detached();
    }
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Recv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
) -> c_int {
    check("MPI_Recv", &[Need::data(0, buf, count, datatype, true)]);
    let (id, _, settled) = recv(buf, count, datatype, source, tag, comm, true);
    let mut l = lib();
    if !settled {
        l.wait_go();
    }
    let st = l.complete(id);
    put_status(status, &st);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Irecv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check("MPI_Irecv", &[Need::data(0, buf, count, datatype, true)]);
    crate::check::request_out(&mut lib(), request);
    let (_, h, _) = recv(buf, count, datatype, source, tag, comm, false);
    *request = h;
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Sendrecv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    source: c_int,
    recvtag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
) -> c_int {
    check(
        "MPI_Sendrecv",
        &[
            Need::data(0, sendbuf, sendcount, sendtype, false),
            Need::data(5, recvbuf, recvcount, recvtype, true),
        ],
    );
    let send = (sendbuf, sendcount, sendtype, dest, sendtag);
    let recv = (recvbuf, recvcount, recvtype, source, recvtag);
    sendrecv(send, recv, comm, status);
    MPI_SUCCESS as c_int
}

/// `MPI_Sendrecv_replace`: a send-receive whose send goes from a private
/// copy of the buffer, so the receive may overwrite it at once.
#[no_mangle]
pub unsafe extern "C" fn MPI_Sendrecv_replace(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
) -> c_int {
    check(
        "MPI_Sendrecv_replace",
        &[Need::data(0, buf, count, datatype, true)],
    );
    crate::check::data(&mut lib(), count, datatype);
    let (copy, from) = copy_of(buf, count, datatype);
    let send = (from, count, datatype, dest, sendtag);
    let recv = (buf, count, datatype, source, recvtag);
    sendrecv(send, recv, comm, status);
    drop(copy);
    MPI_SUCCESS as c_int
}

/// A send's buffer, count, datatype, destination and tag.
type SendArgs = (*const c_void, c_int, MPI_Datatype, c_int, c_int);
/// A receive's buffer, count, datatype, source and tag.
type RecvArgs = (*mut c_void, c_int, MPI_Datatype, c_int, c_int);

/// A send and a receive on `comm`, reported as a nonblocking send, a
/// nonblocking receive and a wait for both.
unsafe fn sendrecv(s: SendArgs, r: RecvArgs, comm: MPI_Comm, status: *mut MPI_Status) {
    let sh = send(s.0, s.1, s.2, s.3, s.4, comm, SendMode::Standard, false)
        .expect("a nonblocking send returns a request");
    let (rid, _, _) = recv(r.0, r.1, r.2, r.3, r.4, comm, false);
    let mut l = lib();
    let sid = l.req_id(sh).expect("the send's request is not null");
    let done = wait_ids(&mut l, WaitKind::All, &[sid, rid], false);
    if done.len() != 2 {
        fatal(&format!(
            "protocol error: MPI_Waitall of 2 requests answered with {done:?}"
        ));
    }
    l.complete(sid);
    let st = l.complete(rid);
    put_status(status, &st);
}

/// `MPI_Probe` and `MPI_Iprobe`: asks the scheduler, then waits until MPI
/// sees the message it named. Returns whether a message was found.
unsafe fn probe(
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    blocking: bool,
    status: *mut MPI_Status,
) -> bool {
    let mut l = lib();
    crate::check::probe(&mut l, comm, source, tag);
    let cid = l.comm_id(comm);
    // A recorded run's nonblocking probe finds what MPI shows it (or the
    // source the plan forces); one that found something is reported as a
    // test that returned, and says whose message it found.
    if !blocking && l.record.is_some() {
        let Some(rec) = l.record.as_mut() else {
            unreachable!("a recorded run")
        };
        let src = rec.next_probe_source(source, comm);
        let mut flag: c_int = 0;
        let mut st = crate::values::empty_status();
        PMPI_Iprobe(src, tag, comm, &mut flag, &mut st);
        if flag == 0 {
            l.polled_nothing();
            return false;
        }
        if let Some(rec) = l.record.as_mut() {
            rec.probe_found();
        }
        l.polled(
            Op::Probe {
                src: rank_to_wire(source),
                tag: tag_to_wire(tag),
                comm: cid,
                blocking,
            },
            vec![0],
        );
        if source == RSMPI_ANY_SOURCE {
            let src = crate::record::to_world(comm, st.MPI_SOURCE);
            l.push(fib_wire::Up::Found { src });
        }
        put_status(status, &st);
        return true;
    }
    // A recorded run's blocking probe finds what MPI shows it (or the
    // source the plan forces), and says whose message that is.
    let recorded = blocking && l.record.is_some();
    l.event_settled(
        Op::Probe {
            src: rank_to_wire(source),
            tag: tag_to_wire(tag),
            comm: cid,
            blocking,
        },
        recorded,
    );
    if recorded {
        let Some(rec) = l.record.as_mut() else {
            unreachable!("a recorded run")
        };
        let src = rec.probe_source(source, comm);
        let st = l.poll_recorded(&[], |_| {
            let mut flag: c_int = 0;
            let mut st = crate::values::empty_status();
            PMPI_Iprobe(src, tag, comm, &mut flag, &mut st);
            (flag != 0).then_some(st)
        });
        if source == RSMPI_ANY_SOURCE {
            let src = crate::record::to_world(comm, st.MPI_SOURCE);
            l.push(fib_wire::Up::Found { src });
        }
        put_status(status, &st);
        return true;
    }
    match l.wait_down() {
        Down::Probed {
            found: true,
            src,
            tag,
        } => {
            let (src, tag) = (rank_from_wire(src), tag_from_wire(tag));
            let mut st = crate::values::empty_status();
            l.spin(|| {
                let mut flag: c_int = 0;
                PMPI_Iprobe(src, tag, comm, &mut flag, &mut st);
                flag != 0
            });
            put_status(status, &st);
            true
        }
        Down::Probed { found: false, .. } if !blocking => false,
        d => fatal(&format!("protocol error: expected Probed, got {d:?}")),
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Probe(
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
) -> c_int {
    probe(source, tag, comm, true, status);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iprobe(
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    flag: *mut c_int,
    status: *mut MPI_Status,
) -> c_int {
    *flag = probe(source, tag, comm, false, status) as c_int;
    MPI_SUCCESS as c_int
}

/// `MPI_Mprobe` and `MPI_Improbe`: reported as a receive the scheduler
/// matches (a wildcard one is a choice); once it names the message's
/// source and tag, the real `PMPI_Improbe` with them takes that message
/// from MPI (MPI orders it as the engine did: posted receives first, then
/// the earliest message of that source and tag), and the program gets
/// MPI's own message handle, which only `MPI_Mrecv`/`MPI_Imrecv` can
/// receive. Returns whether a message was found.
unsafe fn mprobe(
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    blocking: bool,
    message: *mut MPI_Message,
    status: *mut MPI_Status,
) -> bool {
    let mut l = lib();
    let cid = l.comm_id(comm);
    let id = l.new_id();
    // A recorded run's nonblocking matched probe takes what MPI shows it
    // (or the source the plan forces); one that found nothing is not
    // reported, one that found a message counts among the rank's receives
    // and is reported as a poll that returned, saying whose message.
    if !blocking && l.record.is_some() {
        let Some(rec) = l.record.as_mut() else {
            unreachable!("a recorded run")
        };
        let src = rec.next_source(source, comm);
        let mut flag: c_int = 0;
        let mut st = crate::values::empty_status();
        PMPI_Improbe(src, tag, comm, &mut flag, message, &mut st);
        if flag == 0 {
            *message = RSMPI_MESSAGE_NULL;
            l.polled_nothing();
            return false;
        }
        if let Some(rec) = l.record.as_mut() {
            rec.receive_found();
        }
        l.polled(
            Op::Mprobe {
                src: rank_to_wire(source),
                tag: tag_to_wire(tag),
                comm: cid,
                req: id,
                blocking,
            },
            vec![0],
        );
        if source == RSMPI_ANY_SOURCE {
            let src = crate::record::to_world(comm, st.MPI_SOURCE);
            l.push(fib_wire::Up::Took { req: id, src });
        }
        if src != RSMPI_PROC_NULL {
            l.probed.insert(bits(*message), id);
        }
        put_status(status, &st);
        return true;
    }
    // A recorded run's blocking matched probe takes what MPI gives it (or
    // the source the plan forces: it counts among the rank's receives),
    // and says whose message that is.
    let recorded = blocking && l.record.is_some();
    if !recorded {
        l.mprobe = Some((id, None));
    }
    l.event_settled(
        Op::Mprobe {
            src: rank_to_wire(source),
            tag: tag_to_wire(tag),
            comm: cid,
            req: id,
            blocking,
        },
        recorded,
    );
    if recorded {
        let Some(rec) = l.record.as_mut() else {
            unreachable!("a recorded run")
        };
        let src = rec.source(source, comm).unwrap_or(source);
        if src == RSMPI_PROC_NULL {
            PMPI_Mprobe(src, tag, comm, message, status);
            return true;
        }
        let st = l.poll_recorded(&[], |_| {
            let mut flag: c_int = 0;
            let mut st = crate::values::empty_status();
            PMPI_Improbe(src, tag, comm, &mut flag, message, &mut st);
            (flag != 0).then_some(st)
        });
        if source == RSMPI_ANY_SOURCE {
            let src = crate::record::to_world(comm, st.MPI_SOURCE);
            l.push(fib_wire::Up::Took { req: id, src });
        }
        l.probed.insert(bits(*message), id);
        put_status(status, &st);
        return true;
    }
    let down = l.wait_down();
    let chosen = l.mprobe.take().and_then(|(_, c)| c);
    match (down, chosen) {
        (Down::Go, Some((src, tag))) => {
            let (src, tag) = (rank_from_wire(src), tag_from_wire(tag));
            l.spin(|| {
                let mut flag: c_int = 0;
                PMPI_Improbe(src, tag, comm, &mut flag, message, status);
                flag != 0
            });
            l.probed.insert(bits(*message), id);
            true
        }
        // A probe of `MPI_PROC_NULL`: MPI answers `MPI_MESSAGE_NO_PROC` at
        // once.
        (Down::Go, None) if source == RSMPI_PROC_NULL => {
            PMPI_Mprobe(source, tag, comm, message, status);
            true
        }
        (Down::Probed { found: false, .. }, None) if !blocking => {
            *message = RSMPI_MESSAGE_NULL;
            false
        }
        (d, c) => fatal(&format!(
            "protocol error: a matched probe answered {d:?} with message {c:?}"
        )),
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Mprobe(
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    message: *mut MPI_Message,
    status: *mut MPI_Status,
) -> c_int {
    mprobe(source, tag, comm, true, message, status);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Improbe(
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    flag: *mut c_int,
    message: *mut MPI_Message,
    status: *mut MPI_Status,
) -> c_int {
    *flag = mprobe(source, tag, comm, false, message, status) as c_int;
    MPI_SUCCESS as c_int
}

/// Starts the real receive of a message a matched probe took (MPI's
/// handle, or `MPI_MESSAGE_NO_PROC`) and reports it with its arguments
/// (which the engine compares with the probed send's): it completes at
/// once in the engine, and in MPI as soon as the data is in. Returns its id
/// and the handle for the program.
unsafe fn mrecv(
    buf: *mut c_void,
    count: c_int,
    dtype: MPI_Datatype,
    message: *mut MPI_Message,
    blocking: bool,
) -> (u32, MPI_Request) {
    let mut l = lib();
    crate::check::data(&mut l, count, dtype);
    crate::sig::report(&mut l, count, dtype, None);
    let probe = if message.is_null() {
        NO_PROBE
    } else {
        l.probed.remove(&bits(*message)).unwrap_or(NO_PROBE)
    };
    let mut req = RSMPI_REQUEST_NULL;
    PMPI_Imrecv(buf, count, dtype, message, &mut req);
    let (id, h) = l.new_req(Kind::Recv(RecvReq {
        buf,
        count,
        dtype,
        comm: RSMPI_COMM_SELF,
        proc_null: false,
        cancelled: false,
        real: Some(Real::new(req)),
    }));
    if crate::memory::instrumented() {
        for m in crate::memory::own(
            (!blocking).then_some(id),
            if blocking { "MPI_Mrecv" } else { "MPI_Imrecv" },
            crate::site::for_call(),
            &crate::owned::data(buf, count, dtype, true),
        ) {
            l.push(m);
        }
    }
    // A recorded run's blocking one completes in MPI.
    let settled = blocking && l.record.is_some();
    l.event_settled(
        Op::Mrecv {
            req: id,
            blocking,
            probe,
        },
        settled,
    );
    if settled {
        l.settle(&[id]);
    }
    (id, h)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Mrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    message: *mut MPI_Message,
    status: *mut MPI_Status,
) -> c_int {
    check("MPI_Mrecv", &[Need::data(0, buf, count, datatype, true)]);
    let (id, _) = mrecv(buf, count, datatype, message, true);
    let mut l = lib();
    if l.record.is_none() {
        l.wait_go();
    }
    let st = l.complete(id);
    put_status(status, &st);
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Imrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    message: *mut MPI_Message,
    request: *mut MPI_Request,
) -> c_int {
    check("MPI_Imrecv", &[Need::data(0, buf, count, datatype, true)]);
    crate::check::request_out(&mut lib(), request);
    let (_, h) = mrecv(buf, count, datatype, message, false);
    *request = h;
    MPI_SUCCESS as c_int
}

/// Makes a persistent send request in `mode`.
#[allow(clippy::too_many_arguments)]
unsafe fn send_init(
    buf: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    mode: SendMode,
    request: *mut MPI_Request,
) -> c_int {
    let mut l = lib();
    crate::check::request_out(&mut l, request);
    crate::check::p2p(&mut l, comm, count, dtype, dest, tag, false);
    l.comm_id(comm);
    let (id, h) = l.new_persistent(Persist::Send {
        buf,
        count,
        dtype,
        dest,
        tag,
        comm,
        mode,
    });
    l.event(Op::RequestInit {
        req: id,
        recv: false,
        mode,
    });
    *request = h;
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Send_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check(
        "MPI_Send_init",
        &[Need::data(0, buf, count, datatype, false)],
    );
    send_init(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Standard,
        request,
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ssend_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check(
        "MPI_Ssend_init",
        &[Need::data(0, buf, count, datatype, false)],
    );
    send_init(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Sync,
        request,
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Bsend_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check(
        "MPI_Bsend_init",
        &[Need::data(0, buf, count, datatype, false)],
    );
    send_init(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Buffered,
        request,
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Rsend_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check(
        "MPI_Rsend_init",
        &[Need::data(0, buf, count, datatype, false)],
    );
    send_init(
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        SendMode::Ready,
        request,
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Recv_init(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    check(
        "MPI_Recv_init",
        &[Need::data(0, buf, count, datatype, true)],
    );
    let mut l = lib();
    crate::check::request_out(&mut l, request);
    crate::check::p2p(&mut l, comm, count, datatype, source, tag, true);
    l.comm_id(comm);
    let (id, h) = l.new_persistent(Persist::Recv {
        buf,
        count,
        dtype: datatype,
        src: source,
        tag,
        comm,
    });
    l.event(Op::RequestInit {
        req: id,
        recv: true,
        mode: SendMode::Standard,
    });
    *request = h;
    MPI_SUCCESS as c_int
}

/// Starts the persistent request behind `h`: its send or receive is issued
/// as the nonblocking one would be (a receive with a named source posted
/// ahead of the scheduler when no receive of the rank is deferred, a
/// wildcard one deferred until the scheduler chooses its sender, each time
/// anew), under the request's own id.
unsafe fn start(h: *mut MPI_Request) -> c_int {
    let mut l = lib();
    let Some(id) = l.req_id(*h) else {
        drop(l);
        return PMPI_Start(h);
    };
    let Some(p) = l.persistent.get(&id).copied() else {
        l.unsupported("MPI_Start of a request that is not persistent");
    };
    l.starting = Some(id);
    drop(l);
    // Inactive here; another thread's completion of it may not be before.
    if crate::threads::several() {
        crate::threads::reuses(h as usize, crate::site::for_call());
    }
    match p {
        Persist::Send {
            buf,
            count,
            dtype,
            dest,
            tag,
            comm,
            mode,
        } => {
            send(buf, count, dtype, dest, tag, comm, mode, false);
        }
        Persist::Recv {
            buf,
            count,
            dtype,
            src,
            tag,
            comm,
        } => {
            recv(buf, count, dtype, src, tag, comm, false);
        }
    }
    MPI_SUCCESS as c_int
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Start(request: *mut MPI_Request) -> c_int {
    start(request)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Startall(count: c_int, array_of_requests: *mut MPI_Request) -> c_int {
    for i in 0..count.max(0) as usize {
        let rc = start(array_of_requests.add(i));
        if rc != MPI_SUCCESS as c_int {
            return rc;
        }
    }
    MPI_SUCCESS as c_int
}
