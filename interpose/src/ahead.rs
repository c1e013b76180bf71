//! Calls that go ahead of the scheduler. A receive with a named source is
//! posted to MPI at once while no receive of the rank waits for the
//! scheduler, since MPI then matches it as the engine will (non-overtaking,
//! in posting order); and a blocking receive or a wait whose requests are
//! all sends or posted receives completes in MPI without waiting for an
//! answer. The rank's reports stay batched while such calls complete at
//! once, and are flushed once one has had to wait, so that the scheduler
//! sees the rank waiting. `FIB_AHEAD=0` turns this off.

use std::os::raw::{c_int, c_void};

use mpi_sys::*;

use crate::progress::StuckClock;
use crate::state::{Kind, Lib, Real, RecvReq};

/// How long a call that goes ahead of the scheduler ([`Lib::settle`]) waits
/// in MPI before it flushes the rank's batch of reports: long enough for a
/// running peer to answer (a round trip through shared memory takes a few
/// microseconds), short enough that a peer held by the scheduler, which may
/// need this rank's reports to be released, is not kept waiting long.
const SETTLE_WITHIN: std::time::Duration = std::time::Duration::from_micros(20);

/// How many polls of MPI [`Lib::settle`] makes between two readings of
/// the clock.
const CLOCK_EVERY: u32 = 8;

impl Lib {
    /// Ends a recorded run at a call whose outcome only the scheduler
    /// gives ([`fib_wire::Up::Unrecorded`], after everything else).
    pub fn unrecorded(&mut self) -> ! {
        self.conn.push(&fib_wire::Up::Unrecorded);
        self.conn.flush();
        // SAFETY: `_exit` is always safe to call.
        unsafe { libc::_exit(71) }
    }
}

/// Whether a recorded run's rank has said it waits.
fn rec_blocked(rec: &Option<crate::record::Recording>) -> bool {
    rec.as_ref().is_some_and(|r| r.blocked)
}

impl Lib {
    /// [`Lib::settle`] in a recorded run: polls MPI until the requests of
    /// `ids` complete, with nothing sent meanwhile, unless it takes longer
    /// than [`crate::record::BLOCKED_AFTER`]: the rank then sends
    /// everything and says it is blocked ([`fib_wire::Up::Blocked`]), and
    /// once the call completes, that it is not.
    fn settle_recorded(&mut self, ids: &[u32]) {
        let since = std::time::Instant::now();
        let mut polls: u32 = 0;
        loop {
            let all = ids
                .iter()
                .all(|id| match self.reqs.get_mut(id).map(|r| &mut r.kind) {
                    Some(Kind::Sync(real) | Kind::Standard(real) | Kind::Coll(real)) => real.test(),
                    Some(Kind::Recv(RecvReq {
                        real: Some(real), ..
                    })) => real.test(),
                    _ => true,
                });
            if all {
                break;
            }
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(CLOCK_EVERY) && since.elapsed() >= crate::record::BLOCKED_AFTER
            {
                // What the receives that completed took is part of what
                // the rank sends before it waits: the engine cannot follow
                // the run without it.
                self.report_taken(ids);
                self.blocked(true);
            }
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
        self.blocked(false);
    }

    /// In a recorded run, reports whom each wildcard receive of `ids` that
    /// has completed in MPI got its message from ([`fib_wire::Up::Took`]),
    /// once; sent at once when the rank already said it waits.
    fn report_taken(&mut self, ids: &[u32]) {
        let Some(rec) = &mut self.record else { return };
        let mut any = false;
        for id in ids {
            let Some(&comm) = rec.wild.get(id) else {
                continue;
            };
            let Some(Kind::Recv(RecvReq {
                real: Some(real), ..
            })) = self.reqs.get_mut(id).map(|r| &mut r.kind)
            else {
                continue;
            };
            if !real.test() {
                continue;
            }
            let st = real.status.expect("a completed request keeps its status");
            rec.wild.remove(id);
            // SAFETY: the receive's communicator, valid while it is.
            let src = unsafe { crate::record::to_world(comm, st.MPI_SOURCE) };
            self.conn.push(&fib_wire::Up::Took { req: *id, src });
            any = true;
        }
        if any && rec_blocked(&self.record) {
            self.conn.flush();
        }
    }

    /// In a recorded run, says once that the rank waits in MPI (sending
    /// everything before), or that it no longer does.
    pub fn blocked(&mut self, on: bool) {
        let Some(rec) = &mut self.record else { return };
        if rec.blocked == on {
            return;
        }
        rec.blocked = on;
        self.conn.push(&fib_wire::Up::Blocked { on });
        self.conn.flush();
    }

    /// Posts a receive with a named source to MPI at once, when going
    /// ahead is on and no receive of this rank waits for the scheduler:
    /// MPI then matches it as the engine will (non-overtaking, in posting
    /// order). Returns the real request.
    pub unsafe fn post_ahead(
        &mut self,
        buf: *mut c_void,
        count: c_int,
        dtype: MPI_Datatype,
        src: c_int,
        tag: c_int,
        comm: MPI_Comm,
    ) -> Option<Real> {
        if let Some(rec) = &mut self.record {
            let src = rec.source(src, comm);
            if src == RSMPI_PROC_NULL {
                return None;
            }
            let mut req = RSMPI_REQUEST_NULL;
            PMPI_Irecv(buf, count, dtype, src, tag, comm, &mut req);
            return Some(Real::new(req));
        }
        if !self.ahead || self.deferred > 0 || src == RSMPI_ANY_SOURCE || src == RSMPI_PROC_NULL {
            return None;
        }
        let mut req = RSMPI_REQUEST_NULL;
        PMPI_Irecv(buf, count, dtype, src, tag, comm, &mut req);
        Some(Real::new(req))
    }

    /// Whether a wait for all of `ids` can complete in MPI without the
    /// scheduler: each is a send, or a receive already posted (by
    /// [`Lib::post_ahead`] or the scheduler), and MPI matches these exactly
    /// as the engine will. Such a call needs no answer: the rank reports it
    /// as settled ([`fib_wire::Up::Ahead`]), completes it with
    /// [`Lib::settle`], and the scheduler lets the engine catch up.
    pub fn settles(&self, ids: &[u32]) -> bool {
        (self.ahead || self.record.is_some())
            && ids
                .iter()
                .all(|id| match self.reqs.get(id).map(|r| &r.kind) {
                    Some(Kind::Recv(r)) => r.real.is_some() || r.proc_null,
                    // Only the scheduler knows when a collective matched.
                    Some(Kind::Coll(_)) => false,
                    Some(_) => true,
                    None => false,
                })
    }

    /// Completes the requests of `ids` in MPI, which [`Lib::settles`] said
    /// it can, once the call has been reported. The reports of the rank's
    /// earlier calls stay batched while its calls complete at once; once a
    /// call has waited [`SETTLE_WITHIN`], they are flushed, so that the
    /// scheduler sees the rank waiting (a peer may wait for a choice that
    /// needs every rank seen waiting, and a deadlock is declared only then),
    /// and from then on the rank also takes receives the scheduler posts.
    ///
    /// A call that had to wait that long flushes the next one's reports
    /// before it polls: a rank whose calls keep waiting (a client waiting
    /// for a server that takes its requests with wildcard receives) would
    /// otherwise hold every choice of the scheduler's back by that much.
    pub fn settle(&mut self, ids: &[u32]) {
        if self.record.is_some() {
            return self.settle_recorded(ids);
        }
        let mut since: Option<std::time::Instant> = None;
        let mut flushed = std::mem::take(&mut self.settle_waited);
        if flushed {
            self.conn.flush();
        }
        let mut clock = StuckClock::default();
        let mut polls: u32 = 0;
        loop {
            let mut all = true;
            let mut sends = false;
            for id in ids {
                all &= match self.reqs.get_mut(id).map(|r| &mut r.kind) {
                    Some(Kind::Sync(real)) => real.test(),
                    Some(Kind::Standard(real)) => {
                        let done = real.test();
                        sends |= !done;
                        done
                    }
                    Some(Kind::Recv(RecvReq {
                        real: Some(real), ..
                    })) => real.test(),
                    _ => true,
                };
            }
            if all {
                self.settle_waited = since.is_some_and(|s| s.elapsed() >= SETTLE_WITHIN);
                self.stuck_end(clock);
                return;
            }
            if sends {
                self.stuck_tick(&mut clock);
            }
            if !self.background.is_empty() {
                self.test_background();
            }
            if flushed {
                since.get_or_insert_with(std::time::Instant::now);
                self.poll_socket();
            } else {
                // A call that completes within microseconds (the peer's
                // message is on its way) spins on MPI alone: a yield per
                // poll costs a system call, and a switch to another
                // process when one is runnable, each time. The clock is
                // read every few polls only: on a virtual machine reading
                // it can cost more than a poll.
                polls += 1;
                if !polls.is_multiple_of(CLOCK_EVERY) {
                    continue;
                }
                let now = std::time::Instant::now();
                if now - *since.get_or_insert(now) < SETTLE_WITHIN {
                    continue;
                }
                self.conn.flush();
                flushed = true;
            }
            // SAFETY: always safe.
            unsafe { libc::sched_yield() };
        }
    }
}
