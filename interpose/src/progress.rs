//! The loops every wrapper waits in: waiting for the scheduler's answer,
//! and polling a real MPI request. Both handle [`Down::PostRecv`] (and
//! [`Down::Cancelled`]) as it arrives, so a receive the scheduler has
//! matched is posted even while its rank waits for something else, and
//! both keep MPI's progress engine turning for the peers. A request
//! completes here once the scheduler says it may; a standard send of the
//! program's buffer that MPI takes long to finish is reported as stuck; and
//! at `MPI_Finalize` the sends still in flight are finished or cancelled.

use rustc_hash::FxHashMap as HashMap;
use std::os::raw::c_int;

use fib_wire::{Down, Up};
use mpi_sys::*;

use crate::conn::fatal;
use crate::handle::bits;
use crate::state::{Kind, Lib, Real, RecvReq, Req};
use crate::values::{
    cancelled_status, empty_status, proc_null_status, rank_from_wire, send_status, tag_from_wire,
};

/// How many times a rank looks for the scheduler's answer without sleeping
/// before it blocks in a socket read.
const SPIN_READS: u32 = 64;

/// How long a rank waits in MPI for a standard send of the program's buffer
/// before it tells the scheduler it is stuck there ([`Up::Stuck`]): longer
/// than a message above the eager limit takes when its receive is posted.
const STUCK_AFTER: std::time::Duration = std::time::Duration::from_micros(500);

/// When a rank started waiting for a standard send of the program's buffer,
/// and whether it has told the scheduler ([`Lib::stuck_tick`]).
#[derive(Default)]
pub struct StuckClock(Option<(std::time::Instant, bool)>);

impl Lib {
    /// Posts the deferred receive `id` from `src` with `tag` (wire values);
    /// for the matched probe in progress, notes which message it gets.
    pub fn post_recv(&mut self, id: u32, src: i32, tag: i32) {
        if let Some((m, chosen)) = &mut self.mprobe {
            if *m == id {
                *chosen = Some((src, tag));
                return;
            }
        }
        let Some(Req {
            kind: Kind::Recv(r),
        }) = self.reqs.get_mut(&id)
        else {
            fatal(&format!(
                "protocol error: PostRecv for request {id}, which is not a pending receive"
            ));
        };
        if r.real.is_some() {
            fatal(&format!(
                "protocol error: PostRecv for request {id}, which is already posted"
            ));
        }
        // SAFETY: the program's receive arguments, kept as it passed them.
        let mut req = unsafe { RSMPI_REQUEST_NULL };
        unsafe {
            PMPI_Irecv(
                r.buf,
                r.count,
                r.dtype,
                rank_from_wire(src),
                tag_from_wire(tag),
                r.comm,
                &mut req,
            )
        };
        r.real = Some(Real::new(req));
        self.deferred = self.deferred.saturating_sub(1);
    }

    /// Cancels the receive `id`, as the scheduler decided with every rank
    /// waiting. A deferred receive (a wildcard one is always deferred) is
    /// never posted. A receive posted to MPI (one naming its source) is
    /// cancelled there: the scheduler cancels it only when no send it has
    /// seen can reach it, and every rank's sends have been reported.
    pub fn cancel_recv(&mut self, id: u32) {
        let Some(Req {
            kind: Kind::Recv(r),
        }) = self.reqs.get_mut(&id)
        else {
            fatal(&format!(
                "protocol error: request {id} cancelled, which is not a receive"
            ));
        };
        match &mut r.real {
            None => {
                r.cancelled = true;
                self.deferred = self.deferred.saturating_sub(1);
            }
            Some(real) => {
                // SAFETY: the request is active and owned by this entry.
                unsafe { PMPI_Cancel(&mut real.req) };
                // MPI completes it cancelled; its status stays with it
                // for the program's completion call.
                let st = self.peek(id);
                let mut flag: c_int = 0;
                // SAFETY: a status MPI filled in.
                unsafe { PMPI_Test_cancelled(&st, &mut flag) };
                if flag == 0 {
                    fatal(&format!(
                        "MPI matched the receive of request {id}, which the scheduler cancelled"
                    ));
                }
            }
        }
    }

    /// Handles the messages already read: posts receives, and returns the
    /// first other message.
    fn drain(&mut self) -> Option<Down> {
        while let Some(d) = self.conn.next() {
            match d {
                Down::PostRecv { req, src, tag } => self.post_recv(req, src, tag),
                Down::Cancelled { req } => self.cancel_recv(req),
                other => return Some(other),
            }
        }
        None
    }

    /// With the gate on: handles the messages already read, posting
    /// receives and leaving every answer for its thread.
    fn route(&mut self) {
        while let Some(d) = self.conn.next() {
            match d {
                Down::PostRecv { req, src, tag } => self.post_recv(req, src, tag),
                Down::Cancelled { req } => self.cancel_recv(req),
                Down::To { thread } => self.gate.to = Some(thread),
                other => {
                    let Some(t) = self.gate.to.take() else {
                        fatal(&format!("protocol error: {other:?} addressed to no thread"));
                    };
                    let entry = matches!(other, Down::Entered).then(|| {
                        self.gate.read += 1;
                        self.gate.read - 1
                    });
                    self.gate.mail.push((t, other, entry));
                }
            }
        }
    }

    /// With the gate on: the calling thread's next answer, if it has come
    /// and (an entry) every earlier entry's thread has handed its
    /// operation to MPI.
    fn mail(&mut self) -> Option<Down> {
        let me = crate::threads::gate_index();
        let at = self.gate.mail.iter().position(|(t, _, _)| *t == me)?;
        if self.gate.mail[at].2.is_some_and(|n| n != self.gate.done) {
            return None;
        }
        let (_, d, entry) = self.gate.mail.remove(at);
        if entry.is_some() {
            crate::state::ENTRY.with(|e| e.set(entry));
        }
        Some(d)
    }

    /// [`Lib::wait_down`] with the gate on: the thread lets go of the state
    /// while its answer has not come, so that the rank's other threads make
    /// their calls, and drives MPI meanwhile.
    fn wait_thread(&mut self) -> Down {
        self.finish_entry();
        self.conn.flush();
        let mut idle = 0u32;
        loop {
            if self.conn.read(0) {
                self.route();
                idle = 0;
            }
            if let Some(d) = self.mail() {
                return d;
            }
            if self.in_flight() && self.progress() {
                idle = 0;
            }
            idle = idle.saturating_add(1);
            crate::held::pause(self, idle > 1000);
        }
    }

    /// With the gate on, waits until the call just reported has entered
    /// the rank's sequence ([`Down::Entered`]); its operation goes to MPI
    /// next.
    pub fn wait_entered(&mut self) {
        match self.wait_thread() {
            Down::Entered => {}
            d => fatal(&format!("protocol error: expected Entered, got {d:?}")),
        }
    }

    /// Reads the socket without blocking and posts any receives the scheduler
    /// has released; any other message is a protocol error, since nothing
    /// else is awaited (with the gate on, it waits for its thread).
    pub fn poll_socket(&mut self) {
        self.conn.read(0);
        if self.gate.on {
            return self.route();
        }
        if let Some(d) = self.drain() {
            fatal(&format!(
                "protocol error: unexpected {d:?} while no answer was awaited"
            ));
        }
    }

    /// Whether real MPI operations of this rank are still in flight.
    fn in_flight(&self) -> bool {
        // A rank with windows drives MPI's progress while it waits: a
        // peer's lock, unlock or one-sided call may need it.
        !self.background.is_empty()
            || !self.windows.is_empty()
            || self.reqs.values().any(|r| match &r.kind {
                Kind::Recv(RecvReq {
                    real: Some(real), ..
                })
                | Kind::Sync(real)
                | Kind::Standard(real)
                | Kind::Coll(real) => real.status.is_none(),
                _ => false,
            })
    }

    /// Tests every real operation in flight once (which also drives MPI's
    /// progress engine); returns whether any completed.
    pub fn progress(&mut self) -> bool {
        let mut any = false;
        for r in self.reqs.values_mut() {
            match &mut r.kind {
                Kind::Recv(RecvReq {
                    real: Some(real), ..
                })
                | Kind::Sync(real)
                | Kind::Standard(real)
                | Kind::Coll(real)
                    if real.status.is_none() =>
                {
                    any |= real.test();
                }
                _ => {}
            }
        }
        if !self.freed.is_empty() {
            self.drop_freed();
        }
        if !self.windows.is_empty() {
            poke_progress();
        }
        self.test_background() || any
    }

    /// Forgets the freed requests whose operation has completed.
    fn drop_freed(&mut self) {
        let reqs = &mut self.reqs;
        self.freed.retain(|id| {
            let done = match reqs.get(id).map(|r| &r.kind) {
                Some(Kind::Sync(real))
                | Some(Kind::Standard(real))
                | Some(Kind::Coll(real))
                | Some(Kind::Recv(RecvReq {
                    real: Some(real), ..
                })) => real.status.is_some(),
                Some(_) => false,
                None => true,
            };
            if done {
                reqs.remove(id);
            }
            !done
        });
    }

    /// Flushes and waits for the scheduler's answer, posting receives as they
    /// are released. While real operations are in flight it keeps driving
    /// MPI's progress engine, so that a peer waiting on this rank's data (a
    /// rendezvous send, a synchronous send's acknowledgement) is not stalled
    /// by this rank sleeping in a socket read.
    pub fn wait_down(&mut self) -> Down {
        // Nobody answers a recorded run's ranks.
        if self.record.is_some() {
            self.unrecorded();
        }
        if self.gate.on {
            return self.wait_thread();
        }
        self.conn.flush();
        let mut idle = 0u32;
        loop {
            if let Some(d) = self.drain() {
                return d;
            }
            if self.in_flight() {
                if self.progress() {
                    idle = 0;
                }
                // A rank with windows keeps spinning, as it would in MPI:
                // a peer's passive-target lock, one-sided call, flush or
                // unlock may need this rank's progress at any moment, and
                // MPI gives no sign of it (a millisecond's sleep per peer
                // call made one-sided benchmarks run 30 times slower).
                // Yielding hands the CPU to any runnable rank.
                if idle < 200 || !self.windows.is_empty() {
                    idle = idle.saturating_add(1);
                    if !self.conn.read(0) {
                        // SAFETY: always safe.
                        unsafe { libc::sched_yield() };
                    }
                } else {
                    self.conn.read(1);
                }
            } else if idle < SPIN_READS {
                // An answer usually comes within microseconds: looking for
                // it a few times before sleeping saves a cross-CPU wakeup.
                // Yielding in between hands the CPU to any runnable rank.
                idle += 1;
                if !self.conn.read(0) {
                    // SAFETY: always safe.
                    unsafe { libc::sched_yield() };
                }
            } else {
                // Nothing of this rank's is in flight, but MPI may still owe
                // a peer something that only this rank's progress engine
                // sends (a synchronous send's acknowledgement, the rest of
                // a window of messages): poke it now and then while held,
                // soon at first, then every 64 ms.
                poke_progress();
                let wait = 1i32 << (idle - SPIN_READS).min(6);
                idle = idle.saturating_add(1);
                self.conn.read(wait);
            }
        }
    }

    /// Waits for [`Down::Go`].
    pub fn wait_go(&mut self) {
        match self.wait_down() {
            Down::Go => {}
            d => fatal(&format!("protocol error: expected Go, got {d:?}")),
        }
    }

    /// Between two polls of a call waiting in MPI: a recorded run's rank
    /// (`since`, when the wait began) has nothing to read, and says it is
    /// blocked once it has waited [`crate::record::BLOCKED_AFTER`]; a
    /// scheduled run's reads what the scheduler sent.
    fn between_polls(&mut self, since: Option<std::time::Instant>, polls: &mut u32) {
        match since {
            Some(s) => {
                *polls = polls.wrapping_add(1);
                if polls.is_multiple_of(8) && s.elapsed() >= crate::record::BLOCKED_AFTER {
                    self.blocked(true);
                }
            }
            None => self.poll_socket(),
        }
    }

    /// Polls until `done` says so, posting released receives meanwhile.
    pub fn spin(&mut self, mut done: impl FnMut() -> bool) {
        // A recorded run has nothing to read, and says when it waits long.
        let since = self.record.is_some().then(std::time::Instant::now);
        let mut polls: u32 = 0;
        loop {
            if done() {
                self.blocked(false);
                return;
            }
            self.between_polls(since, &mut polls);
            crate::held::pause(self, false);
        }
    }

    /// After one more poll of a standard send MPI has not finished: once the
    /// rank has waited [`STUCK_AFTER`] for it, tells the scheduler
    /// ([`Up::Stuck`]).
    pub fn stuck_tick(&mut self, clock: &mut StuckClock) {
        let now = std::time::Instant::now();
        let (since, told) = clock.0.get_or_insert((now, false));
        if !*told && now - *since >= STUCK_AFTER {
            *told = true;
            self.push(Up::Stuck { on: true });
            self.conn.flush();
        }
    }

    /// The sends a [`StuckClock`] timed have finished: tells the scheduler
    /// if it was told they were stuck.
    pub fn stuck_end(&mut self, clock: StuckClock) {
        if matches!(clock.0, Some((_, true))) {
            self.push(Up::Stuck { on: false });
            self.conn.flush();
        }
    }

    /// Polls a standard send of the program's buffer (not one in the
    /// table) until MPI has finished it, telling the scheduler if that takes
    /// long ([`Lib::stuck_tick`]); in a recorded run, also that the rank is
    /// blocked once it has waited [`crate::record::BLOCKED_AFTER`], as any
    /// call waiting in MPI does, so that the scheduler can find the run
    /// held by its sends with every rank waiting.
    pub fn spin_standard(&mut self, mut req: MPI_Request) {
        let mut clock = StuckClock::default();
        let since = self.record.is_some().then(std::time::Instant::now);
        let mut polls: u32 = 0;
        loop {
            let mut flag: c_int = 0;
            // SAFETY: the request is active and owned by the caller.
            unsafe { PMPI_Test(&mut req, &mut flag, RSMPI_STATUS_IGNORE) };
            if flag != 0 {
                break;
            }
            self.stuck_tick(&mut clock);
            self.between_polls(since, &mut polls);
            crate::held::pause(self, false);
        }
        self.stuck_end(clock);
        self.blocked(false);
    }

    /// Polls a real request (not one in the table) until it completes.
    pub fn spin_request(&mut self, mut req: MPI_Request) -> MPI_Status {
        let mut st = empty_status();
        self.spin(|| {
            let mut flag: c_int = 0;
            // SAFETY: the request is active and owned by the caller.
            unsafe { PMPI_Test(&mut req, &mut flag, &mut st) };
            flag != 0
        });
        st
    }

    /// Completes the request `id` locally once the scheduler has said it may
    /// complete: polls its real operation, forgets it and returns its status.
    pub fn complete(&mut self, id: u32) -> MPI_Status {
        let st = self.peek(id);
        self.say_taken(id, &st);
        if let Some(newcomm) = self.idups.remove(&id) {
            // A recorded run's rank names it itself, in the order of the
            // completion call's positions, as the scheduler's engine
            // answers.
            if let Some(rec) = self.record.as_mut() {
                let comm = rec.name_comm();
                // SAFETY: MPI wrote the new handle there by the time the
                // request completed; the program keeps it valid until then.
                self.comms.insert(bits(unsafe { *newcomm }), comm);
                self.conn.push(&Up::Named { comm });
                self.drop_req(id);
                return st;
            }
            let Some(cid) = self.new_comms.pop_front() else {
                fatal(&format!(
                    "protocol error: MPI_Comm_idup request {id} completed with no communicator id"
                ));
            };
            // SAFETY: MPI wrote the new handle there by the time the
            // request completed; the program keeps it valid until then.
            self.comms.insert(bits(unsafe { *newcomm }), cid);
        }
        self.drop_req(id);
        st
    }

    /// The status of the request `id` once the scheduler has said it is
    /// complete, leaving it in the table (`MPI_Request_get_status`): polls
    /// its real operation, whose status [`Real`] keeps for the completion.
    pub fn peek(&mut self, id: u32) -> MPI_Status {
        let mut clock = StuckClock::default();
        loop {
            let Some(r) = self.reqs.get_mut(&id) else {
                fatal(&format!("internal error: request {id} is not in the table"));
            };
            match &mut r.kind {
                Kind::Nothing => return send_status(),
                Kind::Sync(real) => {
                    if real.test() {
                        return send_status();
                    }
                }
                Kind::Standard(real) => {
                    if real.test() {
                        self.stuck_end(clock);
                        return send_status();
                    }
                    self.stuck_tick(&mut clock);
                }
                Kind::Coll(real) => {
                    if real.test() {
                        return empty_status();
                    }
                }
                Kind::Recv(rr) => match &mut rr.real {
                    None if rr.proc_null => return proc_null_status(),
                    None if rr.cancelled => return cancelled_status(),
                    None => fatal(&format!(
                        "protocol error: receive {id} may complete but was never posted"
                    )),
                    Some(real) => {
                        if real.test() {
                            return real.status.unwrap();
                        }
                    }
                },
            }
            self.poll_socket();
            crate::held::pause(self, false);
        }
    }

    /// Finishes the buffered sends before `MPI_Finalize`: the scheduler lets
    /// a rank finalize only when every rank has reached `MPI_Finalize`, so a
    /// send still unmatched then never will be; it is cancelled and freed.
    pub fn finish_background(&mut self) {
        // Freed requests the scheduler matched complete as MPI progresses.
        for _ in 0..1000 {
            if self.freed.is_empty() {
                break;
            }
            self.progress();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        self.finish_standard();
        for _ in 0..100 {
            if self.background.is_empty() {
                return;
            }
            self.test_background();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        for mut b in std::mem::take(&mut self.background) {
            // SAFETY: the request is active and owned by the list. Once
            // freed, MPI owns it and the copy is leaked on purpose, since MPI
            // may still read it.
            if !unsafe { cancel_send(&mut b.req) } {
                std::mem::forget(b.copy);
            }
        }
    }

    /// Standard sends of the program's buffer still in flight at
    /// `MPI_Finalize` (never waited for, or freed): those MPI does not
    /// finish soon are cancelled, as [`Lib::finish_background`] does with
    /// copies.
    fn finish_standard(&mut self) {
        let open = |reqs: &HashMap<u32, Req>| -> Vec<u32> {
            reqs.iter()
                .filter(|(_, r)| matches!(&r.kind, Kind::Standard(real) if real.status.is_none()))
                .map(|(id, _)| *id)
                .collect()
        };
        for _ in 0..100 {
            if open(&self.reqs).is_empty() {
                return;
            }
            self.progress();
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        for id in open(&self.reqs) {
            let Some(Req {
                kind: Kind::Standard(real),
            }) = self.reqs.get_mut(&id)
            else {
                continue;
            };
            // SAFETY: the request is active and owned by the table; once
            // freed, MPI owns it.
            unsafe { cancel_send(&mut real.req) };
            real.status = Some(empty_status());
        }
    }
}

/// Cancels a send still in flight at `MPI_Finalize` and polls it a while;
/// returns whether it completed (cancelled, or sent after all). One that
/// has not is freed: MPI owns it, and its buffer, from then on.
unsafe fn cancel_send(req: &mut MPI_Request) -> bool {
    PMPI_Cancel(req);
    let mut flag: c_int = 0;
    for _ in 0..100 {
        PMPI_Test(req, &mut flag, RSMPI_STATUS_IGNORE);
        if flag != 0 {
            return true;
        }
        libc::sched_yield();
    }
    PMPI_Request_free(req);
    false
}

/// The communicator the library probes to let MPI's progress engine run:
/// a duplicate of `MPI_COMM_WORLD` made at `MPI_Init`, on which nothing is
/// ever sent. A probe that finds a message returns without making progress
/// (MPICH does), so probing the program's communicators would stall a
/// peer's one-sided call whenever a message waited for this rank; and a
/// probe of a one-rank communicator (`MPI_COMM_SELF`) makes none at all.
struct ProgressComm(MPI_Comm);

// SAFETY: a communicator handle is a plain value (an int or a pointer to
// an object MPI owns), used only by the thread that holds the library.
unsafe impl Send for ProgressComm {}
unsafe impl Sync for ProgressComm {}

static PROGRESS_COMM: std::sync::Mutex<Option<ProgressComm>> = std::sync::Mutex::new(None);

/// Makes the communicator [`poke_progress`] probes (collective over
/// `MPI_COMM_WORLD`: every rank calls it from its `MPI_Init`). A world of
/// one rank needs none.
pub fn make_progress_comm(size: c_int) {
    if size < 2 {
        return;
    }
    // SAFETY: a handle to fill, after MPI_Init.
    let mut comm: MPI_Comm = unsafe { std::mem::zeroed() };
    // SAFETY: MPI is initialized; every rank makes this call.
    if unsafe { PMPI_Comm_dup(RSMPI_COMM_WORLD, &mut comm) } == 0 {
        *PROGRESS_COMM.lock().unwrap_or_else(|e| e.into_inner()) = Some(ProgressComm(comm));
    }
}

/// Frees the communicator [`poke_progress`] probes, before `MPI_Finalize`.
pub fn free_progress_comm() {
    if let Some(mut c) = PROGRESS_COMM
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        // SAFETY: the handle is ours and still valid.
        unsafe { PMPI_Comm_free(&mut c.0) };
    }
}

/// Lets MPI's progress engine run once, without touching any of the
/// program's messages: a probe of the library's own communicator matches
/// nothing and consumes nothing. Not once MPI is finalized.
pub(crate) fn poke_progress() {
    let mut done: c_int = 0;
    // SAFETY: MPI_Finalized may be called at any time.
    unsafe { PMPI_Finalized(&mut done) };
    if done != 0 {
        return;
    }
    let comm = match &*PROGRESS_COMM.lock().unwrap_or_else(|e| e.into_inner()) {
        Some(c) => c.0,
        // SAFETY: reading a constant.
        None => unsafe { RSMPI_COMM_WORLD },
    };
    let mut flag: c_int = 0;
    // SAFETY: a probe with valid arguments, after MPI_Init.
    unsafe {
        PMPI_Iprobe(
            RSMPI_ANY_SOURCE,
            RSMPI_ANY_TAG,
            comm,
            &mut flag,
            RSMPI_STATUS_IGNORE,
        )
    };
}
