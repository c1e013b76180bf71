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

use std::collections::{BTreeMap, HashMap};

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
}

/// Every pair of conflicting lock epochs of `run` in grant order, with
/// whether `order` forces it. `accesses` are the run's accesses, rank by
/// rank in program order.
///
/// The epochs' accesses to the target are swept by their first byte, each
/// compared only with the accesses of other ranks' epochs still open at
/// that byte: disjoint accesses and one rank's own epochs cost nothing, so
/// the work is the number of accesses (times a logarithm) plus the pairs
/// that overlap.
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
        let mut epochs: Vec<Epoch> = Vec::with_capacity(g.order.len());
        // (epoch, access) for every access of an epoch to the target.
        let mut items: Vec<(usize, usize)> = Vec::new();
        for (e, &l) in g.order.iter().enumerate() {
            let exclusive = matches!(
                run.event(l),
                Event::Lock {
                    exclusive: true,
                    ..
                }
            );
            epochs.push(Epoch { lock: l, exclusive });
            let end = unlock
                .get(&l)
                .copied()
                .flatten()
                .map_or(usize::MAX, |u| u.index);
            let (lo, hi) = (first_of[l.rank], first_of[l.rank + 1]);
            let mine = &accesses[lo..hi];
            let from = mine.partition_point(|a| a.event.index <= l.index);
            let to = mine.partition_point(|a| a.event.index < end);
            for (k, a) in accesses.iter().enumerate().take(lo + to).skip(lo + from) {
                if a.loc == Loc::Window(g.win, g.target)
                    && matches!(a.side, Side::Target | Side::Program)
                    && a.bytes.len > 0
                {
                    items.push((e, k));
                }
            }
        }
        items.sort_by_key(|&(e, k)| (accesses[k].bytes.offset, e));
        // Per rank, the items whose bytes reach past the current offset.
        let mut open: HashMap<Rank, Vec<(usize, usize)>> = HashMap::new();
        let mut pairs: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
        for &(e, k) in &items {
            let b = &accesses[k];
            let rank = epochs[e].lock.rank;
            for (&r, list) in open.iter_mut() {
                // A rank's own epochs are never compared with it: its list
                // is pruned when another rank's access walks it.
                if r == rank {
                    continue;
                }
                list.retain(|&(_, j)| {
                    accesses[j]
                        .bytes
                        .offset
                        .saturating_add(accesses[j].bytes.len)
                        > b.bytes.offset
                });
                for &(f, j) in list.iter() {
                    if !(epochs[e].exclusive || epochs[f].exclusive) {
                        continue;
                    }
                    let a = &accesses[j];
                    if a.mode.conflicts(b.mode) {
                        let key = if f < e { (f, e) } else { (e, f) };
                        let pair = if f < e { (j, k) } else { (k, j) };
                        pairs.entry(key).or_insert(pair);
                    }
                }
            }
            open.entry(rank).or_default().push((e, k));
        }
        for ((f, e), (j, k)) in pairs {
            let (a, b) = (&epochs[f], &epochs[e]);
            out.push(LockOrder {
                first: a.lock,
                second: b.lock,
                win: g.win,
                target: g.target,
                forced: order.before_call(a.lock, b.lock),
                accesses: (accesses[j], accesses[k]),
            });
        }
    }
    out
}

/// One lock epoch's grant handed to the next on a target: the second
/// waits for the first's unlock in this grant order (the edges `order.rs`
/// draws), of two different ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handoff {
    pub first: EventId,
    pub second: EventId,
    pub win: Win,
    pub target: Rank,
    /// The first was granted before the second was asked for.
    pub forced: bool,
}

/// Every handoff of `run`'s grant orders, with whether `order` forces it.
pub fn handoffs(run: &Run, order: &Order) -> Vec<Handoff> {
    let unlock = unlocks(run);
    let mut out = Vec::new();
    for g in &run.grants {
        let mut shared: Vec<EventId> = Vec::new();
        let mut exclusive: Option<EventId> = None;
        for &l in &g.order {
            let is_exclusive = matches!(
                run.event(l),
                Event::Lock {
                    exclusive: true,
                    ..
                }
            );
            let from: Vec<EventId> = if is_exclusive && !shared.is_empty() {
                shared.clone()
            } else {
                exclusive.into_iter().collect()
            };
            for a in from {
                if a.rank != l.rank && unlock.get(&a).copied().flatten().is_some() {
                    out.push(Handoff {
                        first: a,
                        second: l,
                        win: g.win,
                        target: g.target,
                        forced: order.before_call(a, l),
                    });
                }
            }
            if is_exclusive {
                shared.clear();
                exclusive = Some(l);
            } else {
                shared.push(l);
            }
        }
    }
    out
}

/// `run` with the handoff's second epoch granted before its first: the
/// other order of a handoff that `order` (the run's order, perhaps without
/// some match sets) does not force. The second lock moves up each grant
/// order it is in (every target's, for `MPI_Win_lock_all`) past every
/// epoch not granted before it was asked for, as it is when its request
/// comes first; `None` when that does not take it past the first epoch.
pub fn swapped(run: &Run, order: &Order, h: &Handoff) -> Option<Run> {
    let mut out = run.clone();
    for g in out.grants.iter_mut() {
        let Some(mut at) = g.order.iter().position(|&l| l == h.second) else {
            continue;
        };
        while at > 0 && !order.before_call(g.order[at - 1], h.second) {
            g.order.swap(at - 1, at);
            at -= 1;
        }
        if g.win == h.win && g.target == h.target {
            let first = g.order.iter().position(|&l| l == h.first)?;
            if first < at {
                return None;
            }
        }
    }
    Some(out)
}
