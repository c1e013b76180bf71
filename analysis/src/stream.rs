//! Each rank's calls and the data it sent, as the probe runs of rows whose
//! order is tried compare them ([`crate::orders`]).

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

/// FNV-1a, 64 bits: the same in every run of fib.
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Stream {
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
        // Called for every call of a run: hashed in place, not formatted.
        let mut h = Fnv(self.digest ^ 0xcbf2_9ce4_8422_2325);
        std::hash::Hash::hash(&site, &mut h);
        std::hash::Hash::hash(op, &mut h);
        self.digest = h.0;
    }

    /// Whether a call that sends data came without its hash.
    pub fn opaque(&self) -> bool {
        self.opaque
    }

    /// Whether `other` made the same calls, and sent as much data.
    pub(crate) fn calls_alike(&self, other: &Stream) -> bool {
        self.digest == other.digest
            && self.calls == other.calls
            && self.data.len() == other.data.len()
    }

    /// Whether `other` made the same calls and sent the same data, but for
    /// the data at the places where `twin` (another run of the same
    /// choices) sent other data than `self`.
    pub(crate) fn alike(&self, other: &Stream, twin: &Stream) -> bool {
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
