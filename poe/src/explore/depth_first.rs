//! Depth-first exploration of the interleavings of a program.
//!
//! An interleaving is named by the alternatives taken at its choice points,
//! in order. After each run the walk backtracks to the latest choice point
//! with an alternative not yet taken; the next run replays the choices
//! before it and takes that alternative. Runs never repeat: two runs differ
//! at their first differing choice point, where they took different
//! alternatives. An [`Alternative::Defer`] is run only when some run woke
//! it, and not when an ancestor point already explored the same choice
//! through its own Defer (a sleep set; a lock grant is never taken as
//! asleep, since grants the branch took since may conflict with it). An
//! alternative the run marked
//! [`crate::engine::Choice::predicted`] is not run either: the run that took
//! the point stands for it (an exchangeable block of wildcard receives, a
//! row of `MPI_Waitany`).

use crate::engine::{Alternative, Choice, Planned};

use super::Strategy;

/// A choice point on the current path, with what is known of its subtree.
struct Entry {
    choice: Choice,
    /// Alternatives already run (or being run).
    explored: Vec<bool>,
    /// Alternatives to run: the point's own, and the
    /// [`Alternative::Defer`]s that some run in the subtree woke (unless
    /// [`DepthFirst::slept`]).
    wanted: Vec<bool>,
    /// The alternative the run that met the point took past its plan: the
    /// first one, or another when the run was made without the scheduler
    /// ([`crate::engine::Policy`]). An [`Alternative::Defer`] taken so ran
    /// before the point's own alternatives, not after them as a woken one:
    /// it sleeps nothing below ([`DepthFirst::slept`]).
    first: usize,
}

/// Walks the tree of choice sequences depth first.
#[derive(Default)]
pub struct DepthFirst {
    stack: Vec<Entry>,
    started: bool,
    runs: usize,
}

impl DepthFirst {
    /// A walk that starts at the first interleaving.
    pub fn new() -> DepthFirst {
        DepthFirst::default()
    }

    /// The plan of the next run, or `None` when every interleaving has run.
    pub fn next_plan(&mut self) -> Option<Vec<Planned>> {
        if !self.started {
            self.started = true;
            return Some(Vec::new());
        }
        while let Some(last) = self.stack.last_mut() {
            let next = (0..last.wanted.len()).find(|&i| last.wanted[i] && !last.explored[i]);
            if let Some(i) = next {
                last.choice.taken = i;
                last.explored[i] = true;
                return Some(
                    self.stack
                        .iter()
                        .map(|e| Planned {
                            expect: Some(e.choice.point.clone()),
                            taken: e.choice.taken,
                            prefer: None,
                            before: Some(e.choice.before.clone()),
                        })
                        .collect(),
                );
            }
            self.stack.pop();
        }
        None
    }

    /// Records the choices a run took (its plan, then first alternatives).
    pub fn finished(&mut self, choices: &[Choice]) {
        self.runs += 1;
        let kept = self.stack.len().min(choices.len());
        self.stack.truncate(kept);
        for (i, c) in choices.iter().enumerate() {
            if i >= kept {
                let n = c.point.alternatives.len();
                let mut explored = vec![false; n];
                explored[c.taken] = true;
                self.stack.push(Entry {
                    choice: c.clone(),
                    first: c.taken,
                    explored,
                    wanted: c
                        .point
                        .alternatives
                        .iter()
                        .enumerate()
                        .map(|(k, a)| {
                            !matches!(a, Alternative::Defer { .. }) && !c.predicted.contains(&k)
                        })
                        .collect(),
                });
            }
            for &w in &c.wake {
                if w < self.stack[i].wanted.len() && !self.slept(i, w) {
                    self.stack[i].wanted[w] = true;
                }
            }
        }
    }

    /// Whether waking alternative `w` of the choice point at `depth` would
    /// only repeat runs: `w` defers that point to a choice which a choice
    /// point above took first, through an [`Alternative::Defer`] of its own,
    /// in a branch already explored. The choice was still open down here, so
    /// nothing this branch ran before it depended on it, and that branch ran
    /// it ahead of all of them (the choice sleeps, in the terms of sleep
    /// sets). Only the explorer knows what was explored: a replay token names
    /// positions, so the engine's choices cannot depend on it.
    fn slept(&self, depth: usize, w: usize) -> bool {
        let Alternative::Defer { at, alt } = &self.stack[depth].choice.point.alternatives[w] else {
            return false;
        };
        // A lock grant does not commute with the conflicting grants this
        // branch may have taken since (which grants conflict is the
        // engine's knowledge): it is never taken as asleep here.
        if matches!(**alt, Alternative::Grant(_)) {
            return false;
        }
        self.stack[..depth].iter().any(|e| {
            e.choice
                .point
                .alternatives
                .iter()
                .enumerate()
                .any(|(p, a)| {
                    p != e.choice.taken
                        && p != e.first
                        && e.explored[p]
                        && matches!(a, Alternative::Defer { at: x, alt: y } if x == at && y == alt)
                })
        })
    }

    /// The plans of up to `max` alternatives not yet taken on the current
    /// path, deepest first (the order the walk reaches them unless runs
    /// below reveal more). The walk hands each of them out later whatever
    /// the runs before show: a run only adds points below its plan, wakes
    /// alternatives, and leaves the points of its plan as they are.
    pub fn upcoming(&self, max: usize) -> Vec<Vec<Planned>> {
        let mut out = Vec::new();
        for (d, e) in self.stack.iter().enumerate().rev() {
            for (i, _) in e
                .wanted
                .iter()
                .zip(&e.explored)
                .enumerate()
                .filter(|(_, (&w, &x))| w && !x)
            {
                if out.len() == max {
                    return out;
                }
                let mut plan: Vec<Planned> = self.stack[..d]
                    .iter()
                    .map(|e| Planned {
                        expect: Some(e.choice.point.clone()),
                        taken: e.choice.taken,
                        prefer: None,
                        before: Some(e.choice.before.clone()),
                    })
                    .collect();
                plan.push(Planned {
                    expect: Some(e.choice.point.clone()),
                    taken: i,
                    prefer: None,
                    before: Some(e.choice.before.clone()),
                });
                out.push(plan);
            }
        }
        out
    }

    /// Whether `plan` is among the plans [`DepthFirst::upcoming`] lists
    /// when given room for all of them.
    pub fn will_hand_out(&self, plan: &[Planned]) -> bool {
        let Some((last, above)) = plan.split_last() else {
            return false;
        };
        let d = above.len();
        let Some(e) = self.stack.get(d) else {
            return false;
        };
        let on_path = above
            .iter()
            .zip(&self.stack)
            .all(|(p, e)| p.taken == e.choice.taken && p.expect.as_ref() == Some(&e.choice.point));
        on_path
            && last.expect.as_ref() == Some(&e.choice.point)
            && e.wanted.get(last.taken) == Some(&true)
            && e.explored.get(last.taken) == Some(&false)
    }

    /// How many runs have been recorded.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// How many runs the walk knows it still has to hand out, not counting
    /// one handed out and not yet finished: the first run before the walk
    /// starts, then every wanted alternative not yet taken on the current
    /// path. A lower bound: the runs still to come can reveal choice points
    /// below, and wake [`Alternative::Defer`]s.
    pub fn pending(&self) -> usize {
        if !self.started {
            return 1;
        }
        self.stack
            .iter()
            .map(|e| {
                e.wanted
                    .iter()
                    .zip(&e.explored)
                    .filter(|&(&w, &x)| w && !x)
                    .count()
            })
            .sum()
    }
}

impl Strategy for DepthFirst {
    fn next_plan(&mut self) -> Option<Vec<Planned>> {
        DepthFirst::next_plan(self)
    }

    fn finished(&mut self, choices: &[Choice]) {
        DepthFirst::finished(self, choices)
    }

    fn pending(&self) -> Option<usize> {
        Some(DepthFirst::pending(self))
    }

    fn upcoming(&self, max: usize) -> Vec<Vec<Planned>> {
        DepthFirst::upcoming(self, max)
    }

    fn will_hand_out(&self, plan: &[Planned]) -> bool {
        DepthFirst::will_hand_out(self, plan)
    }
}
