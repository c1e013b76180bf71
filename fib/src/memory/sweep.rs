//! The races among a run's accesses, without comparing all pairs.
//!
//! Accesses are grouped by the memory they are in (a window segment, a
//! rank's buffers) and each group is swept in a topological order of the
//! accesses' starts. An access `a` is before `b` when `a`'s end is ordered
//! before `b`'s start; in the sweep only an earlier `a` can be before a
//! later `b`. Each group keeps, per lane (a rank, or a thread of a rank
//! that had several) and per access class (reads, writes, each accumulate
//! operation and type), the accesses not yet known to be before that
//! lane's next access: once `a` is before an access of lane `l` it is
//! before every later one of `l`, and leaves `l`'s list. A new access is
//! compared only with the lists of its own lane and of the
//! classes it can conflict with, so each comparison either retires an entry
//! or finds an unordered pair; only unordered pairs of disjoint bytes cost
//! without being reported.
//!
//! A rank's message buffer is never reported against its own loads,
//! stores and message buffers: such a pair is unordered only while the
//! buffer is pending, which the rank's run-time check of the memory MPI
//! owns reports whatever the timing (FIB034). Nor are two loads or stores
//! of one rank's threads: a race between threads outside MPI is no
//! MPI-owned memory's.

use std::collections::{BTreeSet, HashMap};

use super::effects::{Access, Loc, Mode, Side};
use super::order::Order;

/// Why a pair is a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RaceRule {
    /// Two accesses to window memory that nothing orders: RMA calls of
    /// different origins, an RMA call and a load or store, loads and stores
    /// of different ranks (a shared-memory window), or a message buffer
    /// (MPI's use of it while its call is pending) and an RMA call or
    /// another rank's load, store or message buffer.
    Window,
    /// Two RMA calls of one origin to one target that no completion
    /// separates (MPI orders only accumulates).
    SameOrigin,
    /// A load or store of a buffer an RMA call still owns.
    OriginBuffer,
    /// Two pending RMA calls' buffers overlap (one written by MPI), or an
    /// RMA call's buffer and a message buffer do.
    PendingBuffers,
}

/// A race: two conflicting accesses, `first` the one with the smaller
/// `(event, side)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Race {
    pub first: Access,
    pub second: Access,
    pub rule: RaceRule,
}

fn rule(a: &Access, b: &Access) -> RaceRule {
    match a.loc {
        Loc::Buffer(_) => {
            if a.side == Side::Program || b.side == Side::Program {
                RaceRule::OriginBuffer
            } else {
                RaceRule::PendingBuffers
            }
        }
        Loc::Window(..) => {
            if a.side == Side::Target && b.side == Side::Target && a.start.rank == b.start.rank {
                RaceRule::SameOrigin
            } else {
                RaceRule::Window
            }
        }
    }
}

/// Whether `a` and `b` are a rank's pending message buffer and its own
/// load, store or other message buffer: program order leaves such a pair
/// unordered only while the buffer is pending, which the rank's run-time
/// check of the memory MPI owns reports whatever the timing (FIB034).
fn own_pending(a: &Access, b: &Access) -> bool {
    let mine = |x: &Access| matches!(x.side, Side::Message | Side::Program);
    a.start.rank == b.start.rank
        && (a.side == Side::Message || b.side == Side::Message)
        && mine(a)
        && mine(b)
}

/// Whether two unordered accesses of one group race.
fn conflict(a: &Access, b: &Access) -> bool {
    a.bytes.overlaps(b.bytes)
        && a.mode.conflicts(b.mode)
        && !(a.side == Side::Target
            && b.side == Side::Target
            && matches!(a.mode, Mode::Atomic(..))
            && matches!(b.mode, Mode::Atomic(..))
            && a.start.rank == b.start.rank)
        && !own_pending(a, b)
        && !(a.side == Side::Program && b.side == Side::Program && a.start.rank == b.start.rank)
}

/// Whether `a` happens before `b` whatever the timing.
pub fn before(order: &Order, a: &Access, b: &Access) -> bool {
    a.end.is_some_and(|end| order.ordered(end, b.start))
}

/// The races among `accesses`, each once, sorted.
pub fn races(order: &Order, accesses: &[Access]) -> Vec<Race> {
    let mut groups: HashMap<Loc, Vec<usize>> = HashMap::new();
    for (i, a) in accesses.iter().enumerate() {
        groups.entry(a.loc).or_default().push(i);
    }
    let mut found = BTreeSet::new();
    for (_, mut group) in groups {
        group.sort_by_key(|&i| {
            let a = &accesses[i];
            (order.position(a.start), a.key())
        });
        let mut lanes: Vec<usize> = group
            .iter()
            .map(|&i| order.lane(accesses[i].start))
            .collect();
        lanes.sort_unstable();
        lanes.dedup();
        let mut classes: Vec<Mode> = vec![Mode::Read, Mode::Write];
        // live[class][lane]: accesses not yet known to be before that
        // lane's next access.
        let mut live: Vec<Vec<Vec<usize>>> = vec![vec![Vec::new(); lanes.len()]; 2];
        for &b in &group {
            let acc_b = &accesses[b];
            let mode = match acc_b.mode {
                Mode::Atomic(..) => acc_b.mode,
                m if m.writes() => Mode::Write,
                _ => Mode::Read,
            };
            let class = match classes.iter().position(|&c| c == mode) {
                Some(c) => c,
                None => {
                    classes.push(mode);
                    live.push(vec![Vec::new(); lanes.len()]);
                    classes.len() - 1
                }
            };
            let r = lanes
                .binary_search(&order.lane(acc_b.start))
                .expect("a lane of the group");
            for (c, lists) in live.iter_mut().enumerate() {
                if !classes[c].conflicts(mode) {
                    continue;
                }
                lists[r].retain(|&a| {
                    let acc_a = &accesses[a];
                    if before(order, acc_a, acc_b) {
                        return false;
                    }
                    if conflict(acc_a, acc_b) {
                        let (i, j) = if acc_a.key() < acc_b.key() {
                            (a, b)
                        } else {
                            (b, a)
                        };
                        found.insert((accesses[i].key(), accesses[j].key(), i, j));
                    }
                    true
                });
            }
            for lists in live[class].iter_mut() {
                lists.push(b);
            }
        }
    }
    found
        .into_iter()
        .map(|(_, _, i, j)| {
            let (first, second) = (accesses[i], accesses[j]);
            Race {
                first,
                second,
                rule: rule(&first, &second),
            }
        })
        .collect()
}
