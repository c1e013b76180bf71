//! Rows of wildcard receives whose order is tried: whether another order
//! of a row changes anything other ranks can see.
//!
//! A run's row of `MPI_ANY_SOURCE` receives that meets every condition of
//! an exchangeable block (the engine's `exchange` module) but whose data or
//! statuses may reach what the program does next ([`poe::Engine::untried`])
//! is run again in each of its other orders, every other choice of the run
//! the same ([`plan`]): the *probe runs*. When each probe run completes and
//! every rank made the same calls, with the same arguments, at the same
//! sites, and sent the same data (the [`Stream`] of each rank: its calls
//! and the hashes of the data of its sends and collectives, [`same`]), the
//! row is an exchangeable block: the run stands for its other orders.
//!
//! Why rows of different ranks (or of one rank at different places) can be
//! tried one at a time, each with the others in this run's order, so that
//! their cost is the sum of their orders, not the product. Take any
//! combination of orders of tried rows, and suppose some run under it
//! differs from this run outside the rows' matches. Take a first
//! difference in causal order: a call of a rank `r`, or the data of a
//! message. Everything `r` received before it came from sends earlier in
//! causal order, so with this run's data; `r` is deterministic, and its
//! wildcard receives outside the rows took what they took in this run, so
//! `r` is where it was in the probe run of its own row's order (or in this
//! run, if `r` has no tried row), whose calls and data are this run's. So
//! the first difference cannot be a call of `r`. A message's data is its
//! sender's, which the same argument places in that sender's probe run,
//! where it sent this run's data. So no difference exists: every rank
//! makes this run's calls and sends this run's data, and the orders differ
//! only in which receive of a row took which message. That is what an
//! exchangeable block's reduction needs, so the same rules give the pairs
//! and the barrier verdicts.
//!
//! What the streams do not show, a probe run must not have: memory MPI
//! owns or watches (whose accesses fib orders by timing), a call whose
//! data the ranks could not hash ([`Stream::opaque`]), an ending other
//! than completion.

use poe::engine::{Alternative, Choice, Exchange, Planned};

use crate::record::RunRecord;

/// One rank's calls and the data it sent, as one digest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stream {
    digest: u64,
    calls: u64,
    /// A call that sends data came with no hash of it.
    opaque: bool,
    /// A hash came for the rank's next call.
    hashed: bool,
}

impl Stream {
    fn fold(&mut self, bytes: &[u8]) {
        // FNV-1a, 64 bits: the same in every run of fib.
        let mut h = self.digest ^ 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.digest = h;
    }

    /// The hash of the data the rank's next call sends
    /// ([`fib_wire::Op::Data`]).
    pub fn data(&mut self, hash: u64) {
        self.fold(&hash.to_le_bytes());
        self.hashed = true;
    }

    /// A call of the rank.
    pub fn call(&mut self, site: fib_wire::Site, op: &fib_wire::Op) {
        if sends_data(op) && !self.hashed {
            self.opaque = true;
        }
        self.hashed = false;
        self.calls += 1;
        self.fold(format!("{site:?}{op:?}").as_bytes());
    }

    /// Whether a call that sends data came without its hash.
    pub fn opaque(&self) -> bool {
        self.opaque
    }
}

/// Whether a call sends data of the program's to another rank.
fn sends_data(op: &fib_wire::Op) -> bool {
    use fib_wire::{CollKind, Op};
    match op {
        Op::Send { .. } | Op::Rma { .. } => true,
        Op::Coll { kind, .. } | Op::Icoll { kind, .. } => {
            !matches!(kind, CollKind::Barrier | CollKind::Ibarrier)
        }
        _ => false,
    }
}

/// The plan of the probe run that takes the run's `choices` again but has
/// the receives of `row` take `order`'s sends.
pub fn plan(choices: &[Choice], row: &Exchange, order: &[poe::OpId]) -> Vec<Planned> {
    choices
        .iter()
        .enumerate()
        .map(|(i, c)| match row.choices.iter().position(|&k| k == i) {
            Some(j) => Planned {
                expect: None,
                taken: 0,
                prefer: Some(Alternative::Send(order[j])),
            },
            None => Planned {
                expect: Some(c.point.clone()),
                taken: c.taken,
                prefer: None,
            },
        })
        .collect()
}

/// Whether the probe run `probe` of `row` did what `base` did: both
/// completed with nothing in memory MPI owns or watches, the same choices
/// outside the row, and every rank the same stream, none opaque.
pub fn same(base: &RunRecord, probe: &RunRecord, row: &Exchange) -> bool {
    let clean = |r: &RunRecord| {
        r.ending.completed()
            && r.owned.is_empty()
            && r.watched.is_empty()
            && r.streams
                .as_ref()
                .is_some_and(|s| s.iter().all(|x| !x.opaque()))
    };
    clean(base)
        && clean(probe)
        && base.streams == probe.streams
        && base.choices.len() == probe.choices.len()
        && base
            .choices
            .iter()
            .zip(&probe.choices)
            .enumerate()
            .all(|(i, (a, b))| {
                if row.choices.contains(&i) {
                    a.point.at == b.point.at
                } else {
                    a.point == b.point && a.taken == b.taken
                }
            })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fib_wire::{CollKind, Op, SendMode, Site};

    fn send(dest: i32) -> Op {
        Op::Send {
            mode: SendMode::Standard,
            dest,
            tag: 0,
            comm: 0,
            req: None,
        }
    }

    fn barrier() -> Op {
        Op::Coll {
            kind: CollKind::Barrier,
            comm: 0,
            root: 0,
        }
    }

    #[test]
    fn the_same_calls_and_data_make_the_same_stream() {
        let mut a = Stream::default();
        let mut b = Stream::default();
        for s in [&mut a, &mut b] {
            s.data(7);
            s.call(Site::Table(1), &send(1));
            s.call(Site::Table(2), &barrier());
        }
        assert_eq!(a, b);
        assert!(!a.opaque());
    }

    #[test]
    fn other_data_another_peer_or_another_order_differ() {
        let make = |calls: &[(u64, i32)]| {
            let mut s = Stream::default();
            for &(hash, dest) in calls {
                s.data(hash);
                s.call(Site::Table(1), &send(dest));
            }
            s
        };
        let base = make(&[(7, 1), (8, 2)]);
        assert_ne!(base, make(&[(7, 1), (9, 2)]), "data");
        assert_ne!(base, make(&[(7, 1), (8, 3)]), "peer");
        assert_ne!(base, make(&[(8, 2), (7, 1)]), "order");
    }

    #[test]
    fn a_send_without_its_hash_is_opaque_and_a_barrier_is_not() {
        let mut s = Stream::default();
        s.call(Site::Table(2), &barrier());
        assert!(!s.opaque());
        s.call(Site::Table(1), &send(1));
        assert!(s.opaque());
        // A hash covers the next call only.
        let mut s = Stream::default();
        s.data(1);
        s.call(Site::Table(1), &send(1));
        s.call(Site::Table(1), &send(1));
        assert!(s.opaque());
    }
}
