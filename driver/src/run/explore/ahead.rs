//! What the scheduler owes a rank's calls that went ahead of it
//! ([`fib_wire::Up::Ahead`]): a receive the rank posted itself gets no
//! [`fib_wire::Down::PostRecv`], a settled call (already complete in MPI)
//! gets no answer, and the calls after a settled one wait here until the
//! engine has completed it too, since the engine takes a rank's calls one
//! blocking call at a time. The engine's decisions stay its own: MPI
//! matched these calls as the engine's rules do, so it finds the same
//! matches once the other ranks' reports arrive.

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

use fib_wire::{Op, Site, ThreadStep};

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
    /// The thread that made it, for a rank whose gate is on
    /// ([`fib_wire::Up::By`]).
    pub thread: Option<u32>,
}

/// What waits behind a settled call: a call, or what a thread did
/// ([`fib_wire::Up::ThreadStep`]), in the order the rank sent them.
pub(crate) enum Pending {
    Call(Held),
    Step(u32, ThreadStep),
}

/// One rank's calls that went ahead.
#[derive(Default)]
pub(crate) struct Ahead {
    /// How the next call went ahead.
    pub next: Option<Went>,
    /// Receives the rank posted itself (request ids) whose
    /// [`fib_wire::Down::PostRecv`] is not sent.
    pub posted: FxHashSet<u32>,
    /// The engine owes the rank the answer to a settled call.
    pub settled: bool,
    /// That call is a completion call, whose answer is its `Done`: the
    /// communicators of the `MPI_Comm_idup` requests it completes come
    /// before it ([`fib_wire::Down::NewComm`]).
    pub settled_wait: bool,
    /// Calls (and threads' steps) that arrived while `settled`, in order.
    pub held: Backlog<Pending>,
}

/// A first-in first-out queue kept in chunks of [`Backlog::CHUNK`]: a rank
/// far ahead of the engine can leave hundreds of thousands of calls held,
/// and a `VecDeque` would copy them all each time it doubled. Chunks are
/// never reallocated, and one emptied is freed for the allocator to hand
/// out again as the next.
pub(crate) struct Backlog<T> {
    chunks: VecDeque<VecDeque<T>>,
}

impl<T> Default for Backlog<T> {
    fn default() -> Self {
        Backlog {
            chunks: VecDeque::new(),
        }
    }
}

impl<T> Backlog<T> {
    const CHUNK: usize = 1024;

    pub fn push_back(&mut self, x: T) {
        if self.chunks.back().is_none_or(|c| c.len() == Self::CHUNK) {
            self.chunks.push_back(VecDeque::with_capacity(Self::CHUNK));
        }
        self.chunks.back_mut().expect("a chunk").push_back(x);
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    pub fn pop_front(&mut self) -> Option<T> {
        let front = self.chunks.front_mut()?;
        let x = front.pop_front();
        if front.is_empty() {
            self.chunks.pop_front();
        }
        x
    }
}

impl Ahead {
    /// Notes a call given to the engine.
    pub fn fed(&mut self, call: &Held) {
        if let Some(w) = call.went {
            if let (true, Op::Recv { req, .. }) = (w.posted, &call.op) {
                self.posted.insert(*req);
            }
            self.settled = w.settled;
            self.settled_wait = w.settled && matches!(call.op, Op::Wait { .. });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Backlog;

    #[test]
    fn a_backlog_gives_back_what_it_took_in_order_across_chunks() {
        let mut q = Backlog::default();
        let n = 3 * Backlog::<usize>::CHUNK + 7;
        for i in 0..n {
            q.push_back(i);
        }
        for i in 0..10 {
            assert_eq!(q.pop_front(), Some(i));
        }
        q.push_back(n);
        for i in 10..=n {
            assert_eq!(q.pop_front(), Some(i));
        }
        assert_eq!(q.pop_front(), None);
        assert!(q.chunks.is_empty());
        q.push_back(1);
        assert_eq!(q.pop_front(), Some(1));
    }
}
