//! The orders of lock epochs that matter: two epochs on one target, at
//! least one exclusive, of different ranks, whose accesses conflict (they
//! share a byte of the target's window and one writes, by the rules of
//! [`Mode::conflicts`]). The lock serialises them, so they never race, but
//! which one goes first decides what the second one reads or what is left
//! in the window. A barrier that forces that order matters as much as one
//! that keeps two accesses from racing.
//!
//! An order is *forced* in a run when the first epoch's lock was granted
//! before the second one's rank asked for its lock (the grant is ordered
//! before the call of the second `Lock`, [`Order::before_call`]): then no
//! run with the
//! same order of everything else grants them the other way. An order that
//! is not forced is a choice the engine explores both ways.

use super::effects::{Access, Loc, Side};
use super::order::{unlocks, Order};
use super::record::{Event, EventId, Rank, Run, Win};

/// Two conflicting lock epochs on one target, in their grant order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockOrder {
    /// The `Lock` (or `LockAll`) events of the epoch granted first and of
    /// the one granted after it.
    pub first: EventId,
    pub second: EventId,
    pub win: Win,
    pub target: Rank,
    /// The first epoch was granted before the second was asked for.
    pub forced: bool,
    /// A pair of their accesses that conflict, the first epoch's first.
    pub accesses: (Access, Access),
}

/// One epoch in a target's grant order.
struct Epoch {
    lock: EventId,
    exclusive: bool,
    /// The accesses of the epoch to the target's window memory.
    accesses: Vec<usize>,
}

/// Every pair of conflicting lock epochs of `run` in grant order, with
/// whether `order` forces it. `accesses` are the run's accesses, rank by
/// rank in program order.
pub fn lock_orders(run: &Run, order: &Order, accesses: &[Access]) -> Vec<LockOrder> {
    if run.grants.is_empty() {
        return Vec::new();
    }
    let unlock = unlocks(run);
    // Where each rank's accesses start.
    let mut first_of = vec![accesses.len(); run.ranks.len() + 1];
    for (i, a) in accesses.iter().enumerate().rev() {
        first_of[a.event.rank] = i;
    }
    for r in (0..run.ranks.len()).rev() {
        first_of[r] = first_of[r].min(first_of[r + 1]);
    }
    let mut out = Vec::new();
    for g in &run.grants {
        let epochs: Vec<Epoch> = g
            .order
            .iter()
            .map(|&l| {
                let exclusive = matches!(
                    run.event(l),
                    Event::Lock {
                        exclusive: true,
                        ..
                    }
                );
                let end = unlock
                    .get(&l)
                    .copied()
                    .flatten()
                    .map_or(usize::MAX, |u| u.index);
                let mine = &accesses[first_of[l.rank]..first_of[l.rank + 1]];
                let from = mine.partition_point(|a| a.event.index <= l.index);
                let to = mine.partition_point(|a| a.event.index < end);
                let accesses = (from..to)
                    .map(|k| first_of[l.rank] + k)
                    .filter(|&k| {
                        let a = &accesses[k];
                        a.loc == Loc::Window(g.win, g.target)
                            && matches!(a.side, Side::Target | Side::Program)
                    })
                    .collect();
                Epoch {
                    lock: l,
                    exclusive,
                    accesses,
                }
            })
            .collect();
        for (i, a) in epochs.iter().enumerate() {
            for b in &epochs[i + 1..] {
                if a.lock.rank == b.lock.rank || !(a.exclusive || b.exclusive) {
                    continue;
                }
                let Some(pair) = conflict(accesses, &a.accesses, &b.accesses) else {
                    continue;
                };
                let forced = order.before_call(a.lock, b.lock);
                out.push(LockOrder {
                    first: a.lock,
                    second: b.lock,
                    win: g.win,
                    target: g.target,
                    forced,
                    accesses: pair,
                });
            }
        }
    }
    out
}

/// A pair of conflicting accesses of two epochs, if they have one.
fn conflict(accesses: &[Access], a: &[usize], b: &[usize]) -> Option<(Access, Access)> {
    a.iter().find_map(|&i| {
        let x = &accesses[i];
        b.iter().find_map(|&j| {
            let y = &accesses[j];
            (x.bytes.overlaps(y.bytes) && x.mode.conflicts(y.mode)).then_some((*x, *y))
        })
    })
}
