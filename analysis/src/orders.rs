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
//! What the streams do not show, a probe run must not have: window memory
//! (whose accesses fib orders across ranks), a call whose data the ranks
//! could not hash ([`Stream::opaque`]), an ending other than completion.
//! Each rank's accesses to memory its own pending operations own are
//! compared as its calls are.
//!
//! Data that differs between two runs of the same choices (a time a rank
//! measured and reduced, say) breaks fib's assumption that a rank's
//! matches decide what it does, in every run alike. When a probe run
//! differs from the run only in data, one more run of the run's own
//! choices ([`again`]) finds that data, and the comparison leaves it out:
//! what the proof above needs of it, the row's order cannot give, since
//! two runs of one order do not agree on it either.

use poe::engine::{Alternative, Choice, Exchange, Planned};

use crate::record::RunRecord;

/// One rank's calls, as one digest, and the hashes of the data it sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stream {
    digest: u64,
    calls: u64,
    /// The hash of each data a call sent, in the rank's order.
    data: Vec<u64>,
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
        self.data.push(hash);
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

    /// Whether `other` made the same calls, and sent as much data.
    fn calls_alike(&self, other: &Stream) -> bool {
        self.digest == other.digest
            && self.calls == other.calls
            && self.data.len() == other.data.len()
    }

    /// Whether `other` made the same calls and sent the same data, but for
    /// the data at the places where `twin` (another run of the same
    /// choices) sent other data than `self`.
    fn alike(&self, other: &Stream, twin: &Stream) -> bool {
        if !self.calls_alike(other) {
            return false;
        }
        let noisy = |i: usize| twin.data.get(i) != self.data.get(i);
        self.data
            .iter()
            .zip(&other.data)
            .enumerate()
            .all(|(i, (a, b))| a == b || noisy(i))
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

/// Each rank's accesses to memory MPI owned, in its program order.
fn by_rank(r: &RunRecord) -> Vec<Vec<&crate::record::OwnedAccess>> {
    let mut out: Vec<Vec<&crate::record::OwnedAccess>> = Vec::new();
    for a in &r.owned {
        if out.len() <= a.rank {
            out.resize_with(a.rank + 1, Vec::new);
        }
        out[a.rank].push(a);
    }
    out
}

/// The plan of a run that takes the run's `choices` again: the twin whose
/// data tells which of the run's data is not decided by its matches
/// ([`same`]).
pub fn again(choices: &[Choice]) -> Vec<Planned> {
    choices
        .iter()
        .map(|c| Planned {
            expect: Some(c.point.clone()),
            taken: c.taken,
            prefer: None,
        })
        .collect()
}

/// How the probe run `probe` of `row` compares with `base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    /// It did what `base` did.
    Same,
    /// It did something else.
    Differs,
    /// It differs from `base` only in data it sent: a twin of `base`
    /// ([`again`]) tells whether that data differs between runs of the same
    /// choices too.
    DataOnly,
}

/// Whether the probe run `probe` of `row` did what `base` did: both
/// completed with nothing in window memory, the same choices outside the
/// row, every rank the same calls, none opaque, the same accesses to
/// memory MPI owned (a rank's own pending buffers: what it does to them
/// follows from its calls and data, like its calls), and the same data
/// sent. With `twin`, a run of `base`'s choices again, data that the twin
/// sent otherwise than `base` is not compared: it comes from a clock or
/// another source outside the matches (fib's determinism assumption does
/// not hold for it, in any run), not from the row's order.
pub fn same(
    base: &RunRecord,
    probe: &RunRecord,
    row: &Exchange,
    twin: Option<&RunRecord>,
) -> Compared {
    let clean = |r: &RunRecord| {
        r.ending.completed()
            && r.watched.is_empty()
            && r.streams
                .as_ref()
                .is_some_and(|s| s.iter().all(|x| !x.opaque()))
    };
    let choices = base.choices.len() == probe.choices.len()
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
            });
    if !(clean(base) && clean(probe) && choices && by_rank(base) == by_rank(probe)) {
        return Compared::Differs;
    }
    let (Some(b), Some(p)) = (&base.streams, &probe.streams) else {
        return Compared::Differs;
    };
    if b.len() != p.len() {
        return Compared::Differs;
    }
    if b.iter().zip(p).all(|(x, y)| x == y) {
        return Compared::Same;
    }
    let twins = twin.and_then(|t| t.streams.as_ref().filter(|_| t.ending.completed()));
    match twins {
        None if b.iter().zip(p).all(|(x, y)| x.calls_alike(y)) => Compared::DataOnly,
        None => Compared::Differs,
        Some(t) if t.len() == b.len() => {
            let alike = b
                .iter()
                .zip(p)
                .zip(t)
                .all(|((x, y), z)| x.calls_alike(z) && x.alike(y, z));
            if alike {
                Compared::Same
            } else {
                Compared::Differs
            }
        }
        Some(_) => Compared::Differs,
    }
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
    fn data_a_twin_also_changed_is_left_out_and_no_other() {
        let make = |hashes: &[u64]| {
            let mut s = Stream::default();
            for &h in hashes {
                s.data(h);
                s.call(Site::Table(1), &send(1));
            }
            s
        };
        let base = make(&[1, 2, 3]);
        let twin = make(&[1, 9, 3]);
        assert!(base.alike(&make(&[1, 5, 3]), &twin), "noise");
        assert!(
            !base.alike(&make(&[1, 5, 4]), &twin),
            "the third is not noise"
        );
        assert!(!base.alike(&make(&[1, 2]), &twin), "fewer calls");
        assert!(!base.alike(&make(&[1, 2, 3, 4]), &twin), "more calls");
        assert!(base.calls_alike(&make(&[4, 5, 6])));
        let mut other = make(&[1, 2]);
        other.data(3);
        other.call(Site::Table(2), &send(1));
        assert!(!base.calls_alike(&other), "another site");
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
