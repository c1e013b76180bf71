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

/// How long a recorded run's rank polls MPI for a call before it sleeps
/// between polls, and its longest sleep.
const NAP_AFTER: std::time::Duration = std::time::Duration::from_millis(50);
const NAP_MAX: std::time::Duration = std::time::Duration::from_millis(1);

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

/// What a recorded run's completion call waits for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Every request (`MPI_Wait`, `MPI_Waitall`).
    All,
    /// One (`MPI_Waitany`).
    Any,
    /// At least one, and every one complete by then (`MPI_Waitsome`).
    Some,
}

/// The requests of `ids` at the positions `at` that the plan forces a
/// `Waitany` (or, with `some`, a `Waitsome`) or its test form to return;
/// positions that list cannot return end the run.
fn forced_requests(at: &[u32], ids: &[u32], some: bool) -> Vec<u32> {
    let fits =
        !at.is_empty() && (some || at.len() == 1) && at.iter().all(|&i| (i as usize) < ids.len());
    if !fits {
        crate::conn::fatal(&format!(
            "protocol error: the plan forces positions {at:?} of a list of {} requests",
            ids.len()
        ));
    }
    at.iter().map(|&i| ids[i as usize]).collect()
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
        self.wait_recorded(ids, Want::All);
    }

    /// In a recorded run, completes an `MPI_Waitany` on `ids` (with
    /// `some`, an `MPI_Waitsome`) in MPI and returns the positions it
    /// returns: those the plan forces ([`crate::record::Recording::pick`]),
    /// or else the first request MPI completes (every one found complete
    /// at once).
    pub fn settle_picked(&mut self, ids: &[u32], some: bool) -> Vec<u32> {
        let forced = self.record.as_mut().and_then(|r| r.pick());
        let Some(at) = forced else {
            return self.wait_recorded(ids, if some { Want::Some } else { Want::Any });
        };
        let chosen = forced_requests(&at, ids, some);
        self.wait_recorded(&chosen, Want::All);
        at
    }

    /// Polls MPI until what `want` asks of the requests of `ids` has
    /// completed, and returns their positions (see
    /// [`Lib::settle_recorded`] for what a long wait sends).
    fn wait_recorded(&mut self, ids: &[u32], want: Want) -> Vec<u32> {
        self.poll_recorded(ids, |l| l.completed(ids, want))
    }

    /// Tests the requests of `ids` in MPI once: the positions of those
    /// complete, if that is what `want` asks for.
    fn completed(&mut self, ids: &[u32], want: Want) -> Option<Vec<u32>> {
        let mut done = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            match (self.done_in_mpi(*id), want) {
                (false, Want::All) => break,
                (true, Want::Any) => {
                    done.push(i as u32);
                    break;
                }
                (true, _) => done.push(i as u32),
                (false, _) => {}
            }
        }
        let enough = done.len() == ids.len() || (want != Want::All && !done.is_empty());
        enough.then_some(done)
    }

    /// Whether the request `id` has completed in MPI (one with no request
    /// of MPI's behind it has: a send completed without MPI, a receive
    /// from `MPI_PROC_NULL` or that the plan cancelled).
    pub fn done_in_mpi(&mut self, id: u32) -> bool {
        match self.reqs.get_mut(&id).map(|r| &mut r.kind) {
            Some(Kind::Sync(real) | Kind::Standard(real) | Kind::Coll(real)) => real.test(),
            Some(Kind::Recv(RecvReq {
                real: Some(real), ..
            })) => real.test(),
            _ => true,
        }
    }

    /// A recorded run's test of `ids` (`kind`, as `MPI_Test*` tests
    /// them): the positions it returns, of what MPI has completed. A
    /// `Testany` or `Testsome` whose positions the plan forces returns
    /// them once they are all complete, and nothing before; one that
    /// returns something counts among the rank's `Waitany` and `Waitsome`
    /// calls.
    pub fn test_recorded(&mut self, ids: &[u32], kind: fib_wire::WaitKind) -> Vec<u32> {
        use fib_wire::WaitKind;
        let picks = matches!(kind, WaitKind::Any | WaitKind::Some);
        let forced = match &self.record {
            Some(rec) if picks => rec.peek_pick().cloned(),
            _ => None,
        };
        let out = match forced {
            Some(at) => {
                let chosen = forced_requests(&at, ids, kind == WaitKind::Some);
                self.completed(&chosen, Want::All).map(|_| at)
            }
            None => {
                let want = match kind {
                    WaitKind::One | WaitKind::All => Want::All,
                    WaitKind::Any => Want::Any,
                    WaitKind::Some => Want::Some,
                };
                self.completed(ids, want)
            }
        }
        .unwrap_or_default();
        if picks && !out.is_empty() {
            if let Some(rec) = &mut self.record {
                rec.pick();
            }
        }
        out
    }

    /// Reports a recorded run's test `op`, which returned the positions
    /// `indices` ([`fib_wire::Up::Polled`], then the call as settled). A
    /// test that returned nothing is not reported: the engine would only
    /// fail it, and how many fail is timing. Once the rank has made only
    /// such tests for [`crate::record::BLOCKED_AFTER`], it says it spins
    /// and is blocked (a call reported after says it is not).
    pub fn polled(&mut self, op: fib_wire::Op, indices: Vec<u32>) {
        if indices.is_empty() {
            return self.polled_nothing();
        }
        self.push(fib_wire::Up::Polled { indices });
        self.event_settled(op, true);
    }

    /// A recorded run's test or nonblocking probe returned nothing: not
    /// reported ([`Lib::polled`]).
    pub fn polled_nothing(&mut self) {
        let Some(rec) = &mut self.record else { return };
        let since = *rec.spin.get_or_insert_with(std::time::Instant::now);
        if !rec.blocked && since.elapsed() >= crate::record::BLOCKED_AFTER {
            self.push(fib_wire::Up::Spinning);
            self.blocked(true);
        }
    }

    /// In a recorded run, polls with `poll` until it gives something.
    /// Past [`crate::record::BLOCKED_AFTER`] the rank sends everything,
    /// with what the wildcard receives of `ids` that completed took, and
    /// says it is blocked ([`fib_wire::Up::Blocked`]); once `poll` has
    /// given, that it is not.
    pub fn poll_recorded<T>(
        &mut self,
        ids: &[u32],
        mut poll: impl FnMut(&mut Lib) -> Option<T>,
    ) -> T {
        let since = std::time::Instant::now();
        let mut polls: u32 = 0;
        let mut clock = StuckClock::default();
        let out = loop {
            if let Some(t) = poll(self) {
                break t;
            }
            polls = polls.wrapping_add(1);
            if !polls.is_multiple_of(CLOCK_EVERY) {
                continue;
            }
            // A standard send of the program's buffer that MPI has not
            // finished may wait for a receive the run never posts without
            // buffering: the scheduler is told, as in a scheduled run.
            if self.standard_pending(ids) {
                self.stuck_tick(&mut clock);
            }
            let waited = since.elapsed();
            if waited >= crate::record::BLOCKED_AFTER {
                // What the receives that completed took is part of what
                // the rank sends before it waits: the engine cannot follow
                // the run without it.
                self.report_taken(ids);
                self.blocked(true);
            }
            // A call that completes within microseconds spins on MPI alone,
            // as MPI itself does: a yield is a system call, and a switch
            // whenever another process is runnable. One that has waited
            // long sleeps between polls, a twentieth of its wait so far
            // up to [`NAP_MAX`]: with more ranks than cores, ranks that
            // only yield keep every core busy with polls.
            if waited >= NAP_AFTER {
                let nap = (waited / 20).min(NAP_MAX);
                std::thread::sleep(nap);
            } else if waited >= SETTLE_WITHIN {
                // SAFETY: always safe.
                unsafe { libc::sched_yield() };
            }
        };
        self.stuck_end(clock);
        self.blocked(false);
        out
    }

    /// Whether a request of `ids` is a standard send of the program's
    /// buffer that MPI has not finished.
    fn standard_pending(&mut self, ids: &[u32]) -> bool {
        ids.iter()
            .any(|id| match self.reqs.get_mut(id).map(|r| &mut r.kind) {
                Some(Kind::Standard(real)) => !real.test(),
                _ => false,
            })
    }

    /// In a recorded run, reports whom each wildcard receive of `ids` that
    /// has completed in MPI got its message from ([`fib_wire::Up::Took`]),
    /// once; sent at once when the rank already said it waits.
    fn report_taken(&mut self, ids: &[u32]) {
        let mut any = false;
        for id in ids {
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
            any |= self.say_taken(*id, &st);
        }
        if any && rec_blocked(&self.record) {
            self.conn.flush();
        }
    }

    /// In a recorded run, once the receive `id` has completed with status
    /// `st`: if it is a wildcard receive or one the program asked to
    /// cancel, says (once) whose message it got, or that MPI cancelled it
    /// ([`fib_wire::Up::Took`]); returns whether it did.
    pub fn say_taken(&mut self, id: u32, st: &MPI_Status) -> bool {
        let Some(rec) = &mut self.record else {
            return false;
        };
        let comm = match (rec.wild.remove(&id), rec.cancels.remove(&id)) {
            (Some(c), _) | (None, Some(c)) => c,
            (None, None) => return false,
        };
        let mut cancelled: c_int = 0;
        // SAFETY: a status MPI filled in (or fib, for a receive never
        // posted); the receive's communicator is valid while it is.
        let src = unsafe {
            PMPI_Test_cancelled(st, &mut cancelled);
            match cancelled {
                0 => crate::record::to_world(comm, st.MPI_SOURCE),
                _ => fib_wire::CANCELLED,
            }
        };
        self.conn.push(&fib_wire::Up::Took { req: id, src });
        true
    }

    /// In a recorded run, the program's `MPI_Cancel` of request `id`. A
    /// send's cancel fails, as the engine has it. A receive the plan
    /// cancels was never posted: it is cancelled now; one the plan gives a
    /// message is left to MPI; any other is cancelled in MPI, and says at
    /// its completion what came of it ([`Lib::say_taken`]).
    pub fn cancel_recorded(&mut self, id: u32) {
        let Some(rec) = &mut self.record else { return };
        let kept = rec.kept.contains(&id);
        let Some(Kind::Recv(r)) = self.reqs.get_mut(&id).map(|r| &mut r.kind) else {
            return;
        };
        if r.proc_null || r.cancelled {
            return;
        }
        match &mut r.real {
            None => self.cancel_recv(id),
            Some(_) if kept => {}
            Some(real) => {
                if real.status.is_none() {
                    // SAFETY: the request is active and owned by this entry.
                    unsafe { PMPI_Cancel(&mut real.req) };
                }
                rec.cancels.insert(id, r.comm);
            }
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
            let src = rec.source(src, comm)?;
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

    /// Reports `op`; with `settled`, as a call that completes without the
    /// scheduler's answer ([`fib_wire::Up::Ahead`] first: the scheduler
    /// drops the answer and holds the rank's later calls until its engine
    /// has given it).
    pub fn event_settled(&mut self, op: fib_wire::Op, settled: bool) {
        if settled {
            self.push(fib_wire::Up::Ahead {
                posted: false,
                settled: true,
            });
        }
        self.event(op);
    }

    /// Whether a wait for all of `ids` can complete in MPI without the
    /// scheduler: each is a send, or a receive already posted (by
    /// [`Lib::post_ahead`] or the scheduler), and MPI matches these exactly
    /// as the engine will; in a recorded run, a nonblocking collective too.
    /// Such a call needs no answer: the rank reports it
    /// as settled ([`fib_wire::Up::Ahead`]), completes it with
    /// [`Lib::settle`], and the scheduler lets the engine catch up.
    pub fn settles(&self, ids: &[u32]) -> bool {
        (self.ahead || self.record.is_some())
            && ids
                .iter()
                .all(|id| match self.reqs.get(id).map(|r| &r.kind) {
                    // A recorded run's receive that the plan cancelled
                    // was never posted, and is complete.
                    Some(Kind::Recv(r)) => {
                        r.real.is_some() || r.proc_null || (r.cancelled && self.record.is_some())
                    }
                    // Only the scheduler knows when a collective matched;
                    // a recorded run's completes in MPI (an
                    // `MPI_Comm_idup`'s communicator is named by the rank
                    // as it completes).
                    Some(Kind::Coll(_)) => self.record.is_some(),
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
