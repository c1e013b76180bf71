//! Point-to-point matching: which send a receive or probe can take now
//! (MPI's non-overtaking rule included), which receive could have taken a
//! send had earlier choices gone otherwise, the send/receive pairs with a
//! single possible partner, the answers of probes, and the cancellation of
//! receives the program asked to cancel.

use fib_wire::{Down, ANY, PROC_NULL};

use super::Matching;
use crate::engine::model::{accepts, Fired, Handles, Kind, OpId, Pair, Peer, Rank};

impl Matching {
    /// Marks the receive `id` (an `MPI_Improbe`) as a poll.
    pub(crate) fn mark_poll(&mut self, id: OpId) {
        self.ranks[id.rank].polls.insert(id.index);
    }

    /// Notes the matched probe `id` (its `req` names it to the rank): its
    /// message waits for an `MPI_Mrecv` or `MPI_Imrecv`.
    pub(crate) fn note_probe(&mut self, id: OpId, req: u32) {
        self.ranks[id.rank].probed.insert(req, id.index);
    }

    /// The message the probe `req` of `rank` took is being received: the
    /// probe's position among the rank's calls, if it took one.
    pub(crate) fn probe_received(&mut self, rank: Rank, req: u32) -> Option<usize> {
        self.ranks[rank].probed.remove(&req)
    }

    /// Whether the wildcard receive or probe `at` accepts a message from
    /// world rank `from` with tag `tag`.
    fn takes(&self, at: OpId, from: Rank, tag: i32) -> bool {
        match self.op(at).kind {
            Kind::Recv { src, tag: t, .. } | Kind::Probe { src, tag: t, .. } => {
                accepts(src, t, from, tag)
            }
            _ => false,
        }
    }

    /// Whether the receive or probe `at` that chose (a wildcard one, or one
    /// the program asked to cancel) could have taken the send `send` to
    /// its rank, had the choices it does not follow been taken otherwise:
    /// `at` accepts it, and non-overtaking does not give it (or `at`) to
    /// another call first.
    pub(crate) fn rival(&self, send: OpId, at: OpId) -> bool {
        let Kind::Send {
            dst: Peer::Rank(d),
            tag,
            comm,
            ..
        } = self.op(send).kind
        else {
            return false;
        };
        if at.rank != d {
            return false;
        }
        // A receive naming its source chooses only whether it is
        // cancelled: the send it could have taken instead is a rival.
        let accepted = match self.op(at).kind {
            Kind::Recv {
                src,
                tag: t,
                comm: c,
                ..
            }
            | Kind::Probe {
                src,
                tag: t,
                comm: c,
                ..
            } => c == comm && accepts(src, t, send.rank, tag),
            _ => false,
        };
        if !accepted {
            return false;
        }
        // Non-overtaking: the send can reach `at` only if every earlier
        // send of its sender that `at` accepts goes to an earlier receive.
        let blocked = self.ranks[send.rank].ops.range(0..send.index).any(|o| {
            let Kind::Send {
                dst: Peer::Rank(x),
                comm: c,
                tag: t,
                ..
            } = o.kind
            else {
                return false;
            };
            if x != d || c != comm || !self.takes(at, send.rank, t) {
                return false;
            }
            match o.matched {
                Some(r) => r.index >= at.index,
                // (A cancelled receive is complete and matched nothing.)
                None => !self.ranks[d].ops.range(0..at.index).any(|r| {
                    r.matched.is_none()
                        && !r.complete
                        && matches!(r.kind, Kind::Recv { src, tag, comm: rc, .. }
                                if rc == comm && accepts(src, tag, send.rank, t))
                }),
            }
        });
        // Nor can it if an earlier receive naming its sender still waits
        // and has no earlier send of that sender to take first.
        let claimed = self.ranks[d].ops.range(0..at.index).any(|r| {
            let Kind::Recv {
                src: src @ Peer::Rank(_),
                tag: t,
                comm: rc,
                ..
            } = r.kind
            else {
                return false;
            };
            r.matched.is_none()
                && !r.complete
                && rc == comm
                && accepts(src, t, send.rank, tag)
                && !self.ranks[send.rank].ops.range(0..send.index).any(|o| {
                    o.matched.is_none()
                        && matches!(o.kind, Kind::Send { dst: Peer::Rank(x), comm: c, tag: st, .. }
                                if x == d && c == comm && accepts(src, t, send.rank, st))
                })
        });
        !(blocked || claimed)
    }

    /// The earliest unmatched send from `from` to the receive's rank that the
    /// receive (or probe) accepts, if no receive posted before it would take
    /// that send. `before` is the receive's position among the unmatched
    /// receives of its rank and communicator (all of them, for a probe).
    fn candidate(
        &self,
        comm: u32,
        dst: Rank,
        from: Rank,
        src: Peer,
        tag: i32,
        before: usize,
    ) -> Option<usize> {
        let sends = self.sends.get(&(comm, from, dst))?;
        let s = sends.iter().copied().find(|&s| {
            let Kind::Send { tag: t, .. } = self.ranks[from].ops[s].kind else {
                unreachable!()
            };
            accepts(src, tag, from, t)
        })?;
        let Kind::Send { tag: t, .. } = self.ranks[from].ops[s].kind else {
            unreachable!()
        };
        let pending = self
            .recvs
            .get(&(comm, dst))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let claimed = pending[..before.min(pending.len())].iter().any(|&r| {
            let Kind::Recv { src, tag, .. } = self.ranks[dst].ops[r].kind else {
                unreachable!()
            };
            accepts(src, tag, from, t)
        });
        (!claimed).then_some(s)
    }

    /// Every sender a wildcard receive or probe could get a message from now,
    /// in world-rank order, with its send.
    pub(super) fn candidates(
        &self,
        comm: u32,
        dst: Rank,
        src: Peer,
        tag: i32,
        before: usize,
    ) -> Vec<OpId> {
        let members = self.peers(dst, comm).unwrap_or_default();
        let mut from: Vec<Rank> = match src {
            Peer::Rank(s) => vec![s],
            Peer::Any => members.to_vec(),
            Peer::Null => vec![],
        };
        from.sort_unstable();
        from.into_iter()
            .filter_map(|f| {
                self.candidate(comm, dst, f, src, tag, before)
                    .map(|index| OpId { rank: f, index })
            })
            .collect()
    }

    /// The send a probe of rank `r` that names its source `src` sees now,
    /// if any: the earliest one it accepts that no receive of `r` posted
    /// before the probe would take first.
    pub(super) fn probe_sees(&self, r: Rank, comm: u32, src: Peer, tag: i32) -> Option<OpId> {
        let before = self.recvs.get(&(comm, r)).map_or(0, Vec::len);
        let c = self.candidates(comm, r, src, tag, before);
        c.first().copied()
    }

    /// Whether a send of `from` to `dst` on `comm` with `tag`, about to be
    /// issued, finds a receive posted for it: `dst` has more unmatched
    /// receives that accept it than `from` has earlier unmatched sends on
    /// the channel with that tag (which non-overtaking matches first).
    pub(crate) fn receive_posted(&self, from: Rank, dst: Rank, comm: u32, tag: i32) -> bool {
        let earlier = self.sends.get(&(comm, from, dst)).map_or(0, |q| {
            q.iter()
                .filter(|&&s| {
                    matches!(self.ranks[from].ops[s].kind, Kind::Send { tag: t, .. } if t == tag)
                })
                .count()
        });
        let accepting = self.recvs.get(&(comm, dst)).map_or(0, |p| {
            p.iter()
                .filter(|&&r| {
                    matches!(self.ranks[dst].ops[r].kind,
                        Kind::Recv { src, tag: t, .. } if accepts(src, t, from, tag))
                })
                .count()
        });
        accepting > earlier
    }

    /// A send/receive pair whose receive names its source: such a pair has
    /// exactly one possible partner.
    pub(crate) fn named_pair(&self) -> Option<(OpId, OpId)> {
        for (&(comm, dst), pending) in &self.recvs {
            for (pos, &ri) in pending.iter().enumerate() {
                let Kind::Recv { src, tag, .. } = self.ranks[dst].ops[ri].kind else {
                    unreachable!()
                };
                if let Peer::Rank(s) = src {
                    if let Some(si) = self.candidate(comm, dst, s, src, tag, pos) {
                        let send = OpId { rank: s, index: si };
                        let recv = OpId {
                            rank: dst,
                            index: ri,
                        };
                        return Some((send, recv));
                    }
                }
            }
        }
        None
    }

    /// The send `send` and the receive `recv`, as a pair to match.
    pub(crate) fn pair(&self, send: OpId, recv: OpId) -> Pair {
        let (comm, tag, sync) = match self.op(send).kind {
            Kind::Send {
                comm, tag, sync, ..
            } => (comm, tag, sync),
            _ => unreachable!(),
        };
        let (src, rtag) = match self.op(recv).kind {
            Kind::Recv { src, tag, .. } => (src, tag),
            _ => unreachable!(),
        };
        Pair {
            send,
            recv,
            comm,
            tag,
            sync,
            src,
            rtag,
        }
    }

    /// Matches the pair `p`: the receive completes, and so does a
    /// synchronous send; the receive's rank is told to post it.
    pub(crate) fn match_pair(&mut self, p: &Pair, wildcard: bool) {
        let Pair {
            send,
            recv,
            comm,
            tag,
            sync,
            ..
        } = *p;
        // Emptied queues stay, ready for the channel's next call: a
        // ping-pong would otherwise remove and insert them per message.
        let q = self.sends.get_mut(&(comm, send.rank, recv.rank)).unwrap();
        q.retain(|&i| i != send.index);
        let p = self.recvs.get_mut(&(comm, recv.rank)).unwrap();
        p.retain(|&i| i != recv.index);
        self.ranks[recv.rank].cancelling.remove(&recv.index);
        {
            let s = &mut self.ranks[send.rank].ops[send.index];
            s.matched = Some(recv);
            if sync {
                s.complete = true;
            }
        }
        let req = {
            let r = &mut self.ranks[recv.rank].ops[recv.index];
            r.matched = Some(send);
            r.complete = true;
            match r.kind {
                Kind::Recv { req, .. } => req,
                _ => unreachable!(),
            }
        };
        let src = self.local_rank(recv.rank, comm, send.rank);
        self.out.push((recv, Down::PostRecv { req, src, tag }));
        self.fired.push(Fired::SendRecv {
            send,
            recv,
            wildcard,
        });
    }

    /// Whether `op` is a buffered send (complete when issued).
    pub(crate) fn buffered_send(&self, op: OpId) -> bool {
        matches!(self.op(op).kind, Kind::Send { sync: false, .. })
    }

    /// The probe `probe` sees the send `send`.
    pub(crate) fn probe(&mut self, probe: OpId, send: OpId) -> Down {
        let (comm, tag) = match self.op(send).kind {
            Kind::Send { comm, tag, .. } => (comm, tag),
            _ => unreachable!(),
        };
        self.ranks[probe.rank].ops[probe.index].matched = Some(send);
        self.ranks[probe.rank].ops[probe.index].complete = true;
        self.fired.push(Fired::Probe { probe, send });
        Down::Probed {
            found: true,
            src: self.local_rank(probe.rank, comm, send.rank),
            tag,
        }
    }

    /// Answers a probe of `MPI_PROC_NULL`: found, from `MPI_PROC_NULL`,
    /// with `MPI_ANY_TAG`, as MPI answers it.
    pub(crate) fn null_probe(&mut self, probe: OpId) -> Down {
        self.ranks[probe.rank].ops[probe.index].complete = true;
        Down::Probed {
            found: true,
            src: PROC_NULL,
            tag: ANY,
        }
    }

    /// Whether the program asked to cancel the receive `at`, which has
    /// neither matched nor been cancelled yet.
    pub(crate) fn cancelling(&self, at: OpId) -> bool {
        self.ranks[at.rank].cancelling.contains(&at.index)
    }

    /// Cancels the receive `at`, which the program asked to cancel: it
    /// matches nothing any more and is complete (cancelled); its rank is
    /// told.
    pub(crate) fn cancel(&mut self, at: OpId) {
        let st = &mut self.ranks[at.rank];
        st.cancelling.remove(&at.index);
        let Kind::Recv { comm, req, .. } = st.ops[at.index].kind else {
            unreachable!("only receives are cancelled")
        };
        st.ops[at.index].complete = true;
        if let Some(p) = self.recvs.get_mut(&(comm, at.rank)) {
            p.retain(|&x| x != at.index);
            if p.is_empty() {
                self.recvs.remove(&(comm, at.rank));
            }
        }
        self.out.push((at, Down::Cancelled { req }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::matching::testing::{call, recv, send};

    #[test]
    fn named_receives_take_sends_in_order() {
        let mut m = Matching::new(2);
        let s0 = call(&mut m, 0, send(1, 7));
        let s1 = call(&mut m, 0, send(1, 7));
        let r0 = call(&mut m, 1, recv(0, 7, 1));
        let r1 = call(&mut m, 1, recv(0, ANY, 2));
        let (s, r) = m.named_pair().unwrap();
        assert_eq!((s, r), (s0, r0));
        m.match_pair(&m.pair(s, r), false);
        assert_eq!(m.named_pair(), Some((s1, r1)));
        assert_eq!(m.op(r0).matched, Some(s0));
        assert!(m.op(r0).complete);
        assert_eq!(
            m.take_out(),
            vec![(
                1,
                Down::PostRecv {
                    req: 1,
                    src: 0,
                    tag: 7
                }
            )]
        );
        assert_eq!(
            m.fired(),
            &[Fired::SendRecv {
                send: s0,
                recv: r0,
                wildcard: false
            }]
        );
    }

    #[test]
    fn a_wildcard_rival_needs_no_earlier_send_in_the_way() {
        let mut m = Matching::new(2);
        let any = call(&mut m, 1, recv(ANY, ANY, 1));
        let first = call(&mut m, 0, send(1, 3));
        let second = call(&mut m, 0, send(1, 3));
        assert!(m.rival(first, any));
        // Non-overtaking: the first send reaches the wildcard receive first.
        assert!(!m.rival(second, any));
        let other_tag = call(&mut m, 0, send(0, 3));
        assert!(!m.rival(other_tag, any));
    }
}
