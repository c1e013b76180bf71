//! What the scheduler owes a rank's calls that went ahead of it
//! ([`fib_wire::Up::Ahead`]): a receive the rank posted itself gets no
//! [`fib_wire::Down::PostRecv`], a settled call (already complete in MPI)
//! gets no answer, and the calls after a settled one wait here until the
//! engine has completed it too, since the engine takes a rank's calls one
//! blocking call at a time. The engine's decisions stay its own: MPI
//! matched these calls as the engine's rules do, so it finds the same
//! matches once the other ranks' reports arrive.

use std::collections::{HashSet, VecDeque};

use fib_wire::{Op, Site};

/// How a call went ahead, as the rank said just before reporting it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Went {
    pub posted: bool,
    pub settled: bool,
}

/// A call that arrived while the engine still owed its rank the answer to
/// a settled one.
pub(crate) struct Held {
    pub site: Site,
    pub op: Op,
    pub went: Option<Went>,
}

/// One rank's calls that went ahead.
#[derive(Default)]
pub(crate) struct Ahead {
    /// How the next call went ahead.
    pub next: Option<Went>,
    /// Receives the rank posted itself (request ids) whose
    /// [`fib_wire::Down::PostRecv`] is not sent.
    pub posted: HashSet<u32>,
    /// The engine owes the rank the answer to a settled call.
    pub settled: bool,
    /// Calls that arrived while `settled`, in order.
    pub held: VecDeque<Held>,
}

impl Ahead {
    /// Notes a call given to the engine.
    pub fn fed(&mut self, call: &Held) {
        if let Some(w) = call.went {
            if let (true, Op::Recv { req, .. }) = (w.posted, &call.op) {
                self.posted.insert(*req);
            }
            self.settled = w.settled;
        }
    }
}
