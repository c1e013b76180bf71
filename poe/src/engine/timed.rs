//! The time rule of ranks whose threads enter MPI at once, recorded and
//! replayed ([`Timed`]).
//!
//! A thread that has made no call for a long while is taken as idle by the
//! driver's clock ([`super::Engine::threads_idle`]): its rank's other calls
//! enter without waiting for it. Where its next input then comes among the
//! rank's calls depends on time, so a replay of the run could meet another
//! order (a choice point the run did not have, or not the one it had).
//! The run records each idling and where the idle thread's next input came
//! ([`Timed`], in the [`super::Choice::before`] of the next choice); a
//! replay idles the thread at the same place of its rank's calls, holds
//! the thread's next input until the place it came in the run, and leaves
//! the clock alone, until it takes the choice its plan ends with: from
//! there on, the run is a new one.
//!
//! A place is the number of the run's choices taken and of the rank's
//! entered calls. An input is a call of the thread or a step it took
//! outside MPI (parked, going on, joined, ended); inputs are numbered per
//! thread in the order they come, which is the thread's own order.

use std::collections::VecDeque;

use fib_wire::{Op, Site};
use rustc_hash::FxHashMap as HashMap;

use super::model::{Planned, Rank, Timed};

/// One input about a thread of a rank of several.
pub(crate) enum Input {
    Call(Site, Op),
    /// It waits for another thread of its rank (`true`), or goes on.
    Parked(bool),
    /// It goes on after this thread of its rank.
    Joined(u32),
    Ended,
}

/// A place of the run: choices taken, and the rank's entered calls.
#[derive(Clone, Copy)]
struct Place {
    choices: usize,
    ops: usize,
}

impl Place {
    /// Whether the run, with `choices` taken and `ops` calls of the rank
    /// entered, has reached this place.
    fn reached(self, choices: usize, ops: usize) -> bool {
        choices > self.choices || (choices == self.choices && ops >= self.ops)
    }
}

/// The time rule's record of this run, and in a replay its plan's.
#[derive(Default)]
pub(crate) struct Timing {
    /// What the rule did since the last choice, for that choice's
    /// [`super::Choice::before`].
    pub(crate) log: Vec<Timed>,
    /// How many inputs came, per thread.
    counted: HashMap<(Rank, u32), u64>,
    /// Whether the plan says what the rule did: until it is used up, the
    /// clock does nothing (but when a thread is overdue).
    pub(crate) scripted: bool,
    /// The plan's idlings still to do, in order.
    idles: VecDeque<(Place, Rank, u32, u64)>,
    /// The places at which the plan's idle threads' next inputs came, in
    /// order.
    comes: VecDeque<(Place, Rank, u32)>,
    /// Per thread, the numbers of its inputs that wait for their place.
    waits: HashMap<(Rank, u32), VecDeque<u64>>,
    /// The inputs held, with their numbers.
    held: HashMap<(Rank, u32), VecDeque<(u64, Input)>>,
}

impl Timing {
    /// The record a run that follows `plan` replays.
    pub(crate) fn new(plan: &[Planned]) -> Timing {
        let mut t = Timing {
            scripted: plan.iter().any(|p| p.before.is_some()),
            ..Timing::default()
        };
        for (k, p) in plan.iter().enumerate() {
            for ev in p.before.iter().flatten() {
                match *ev {
                    Timed::Idle {
                        rank,
                        thread,
                        inputs,
                        ops,
                    } => {
                        let at = Place { choices: k, ops };
                        t.idles.push_back((at, rank, thread, inputs));
                        t.waits.entry((rank, thread)).or_default().push_back(inputs);
                    }
                    Timed::Came { rank, thread, ops } => {
                        t.comes.push_back((Place { choices: k, ops }, rank, thread));
                    }
                }
            }
        }
        t
    }

    /// How many inputs about thread `t` of `rank` have come.
    pub(crate) fn inputs(&self, rank: Rank, t: u32) -> u64 {
        self.counted.get(&(rank, t)).copied().unwrap_or(0)
    }

    /// An input about thread `t` of `rank` came: it is handed back to be
    /// taken now, or held until its place.
    pub(crate) fn arrive(&mut self, rank: Rank, t: u32, input: Input) -> Option<Input> {
        let key = (rank, t);
        let n = self.counted.entry(key).or_default();
        let k = *n;
        *n += 1;
        if let Some(q) = self.held.get_mut(&key) {
            q.push_back((k, input));
            return None;
        }
        if self.waits.get(&key).and_then(|w| w.front()) == Some(&k) {
            self.held.entry(key).or_default().push_back((k, input));
            return None;
        }
        Some(input)
    }

    /// The plan's idlings whose place the run has reached (`ops` gives a
    /// rank's entered calls), taken off the plan.
    pub(crate) fn due_idles(
        &mut self,
        choices: usize,
        ops: impl Fn(Rank) -> usize,
        started: impl Fn(Rank, u32) -> bool,
    ) -> Vec<(Rank, u32, u64)> {
        let mut out = Vec::new();
        while let Some(&(at, rank, t, inputs)) = self.idles.front() {
            // (A thread not started yet is not there yet.)
            if !at.reached(choices, ops(rank)) || !started(rank, t) {
                break;
            }
            self.idles.pop_front();
            out.push((rank, t, inputs));
        }
        out
    }

    /// The threads whose next input has reached its place, taken off the
    /// plan, each with its inputs held until then and whether to wait for
    /// the input (it has not come yet). Once the plan is used up (`done`),
    /// every thread's held inputs, waited for no longer.
    pub(crate) fn due_inputs(
        &mut self,
        choices: usize,
        ops: impl Fn(Rank) -> usize,
        done: bool,
    ) -> Vec<(Rank, u32, Vec<Input>, bool)> {
        let mut out = Vec::new();
        while let Some(&(at, rank, t)) = self.comes.front() {
            if !done && !at.reached(choices, ops(rank)) {
                break;
            }
            self.comes.pop_front();
            // An idling the run never came to stand still for is late.
            let number = self.waits.get(&(rank, t)).and_then(|w| w.front().copied());
            if let Some(i) =
                (self.idles.iter()).position(|&(_, r, u, n)| (r, u, Some(n)) == (rank, t, number))
            {
                self.idles.remove(i);
            }
            out.push((rank, t, self.release(rank, t), !done));
        }
        if done {
            self.idles.clear();
            let keys: Vec<(Rank, u32)> = self.waits.keys().copied().collect();
            for (rank, t) in keys {
                self.waits.remove(&(rank, t));
                let rest = self.held.remove(&(rank, t)).unwrap_or_default();
                out.push((rank, t, rest.into_iter().map(|(_, i)| i).collect(), false));
            }
        }
        out
    }

    /// Thread `t` of `rank`'s input that waited has reached its place: it
    /// and those after it, up to one that waits for a later place.
    fn release(&mut self, rank: Rank, t: u32) -> Vec<Input> {
        let key = (rank, t);
        if let Some(w) = self.waits.get_mut(&key) {
            w.pop_front();
        }
        let next = self.waits.get(&key).and_then(|w| w.front().copied());
        let mut out = Vec::new();
        if let Some(q) = self.held.get_mut(&key) {
            while q.front().is_some_and(|(k, _)| Some(*k) != next) {
                out.push(q.pop_front().expect("an input").1);
            }
            if q.is_empty() {
                self.held.remove(&key);
            }
        }
        if self.waits.get(&key).is_some_and(VecDeque::is_empty) {
            self.waits.remove(&key);
        }
        out
    }

    /// Whether the plan still has anything to do.
    pub(crate) fn pending(&self) -> bool {
        !self.idles.is_empty() || !self.comes.is_empty() || !self.waits.is_empty()
    }
}
