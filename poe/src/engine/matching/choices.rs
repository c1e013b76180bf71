//! The choice points left when every rank waits: which send a wildcard
//! receive or probe takes, whether a receive the program asked to cancel is
//! cancelled, which request a `Waitany` returns and which subset of its
//! complete requests a `Waitsome` returns. Polls (nonblocking probes,
//! tests, `MPI_Improbe`) that find nothing then are answered "not yet".

use fib_wire::{Down, WaitKind, ANY, PROC_NULL};

use super::Matching;
use crate::engine::model::{Alternative, ChoicePoint, Kind, OpId, Peer, Rank};

/// Up to how many complete requests a `Waitsome`/`Testsome` choice offers
/// every non-empty subset of them (63 alternatives at 6). Beyond that it
/// offers only all of them and each one alone (k + 1 alternatives): each
/// alternative is at least one run, and a loop of such calls multiplies them,
/// so 2^k - 1 would make a program that waits for many requests at once
/// unexplorable. The price: past the cap, the outcomes in which the call
/// returns between 2 and k - 1 of its complete requests are not explored.
pub const SOME_SUBSETS_UP_TO: usize = 6;

/// What a `Waitsome`/`Testsome` with the complete requests at positions
/// `done` (ascending) may return: all of them first, so that the first run
/// returns what is there as it always did, then the smaller subsets, larger
/// ones first and each size in lexicographic order (only the single requests
/// beyond [`SOME_SUBSETS_UP_TO`]). The order is part of the replay token.
fn some_subsets(done: &[u32]) -> Vec<Vec<u32>> {
    let k = done.len();
    let mut out: Vec<Vec<u32>> = if k > SOME_SUBSETS_UP_TO {
        std::iter::once(done.to_vec())
            .chain(done.iter().map(|&d| vec![d]))
            .collect()
    } else {
        (1u32..1 << k)
            .map(|mask| {
                (0..k)
                    .filter(|&b| mask >> b & 1 == 1)
                    .map(|b| done[b])
                    .collect()
            })
            .collect()
    };
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out
}

impl Matching {
    /// Whether every rank waits for an answer or has finalized.
    pub(crate) fn all_waiting(&self) -> bool {
        (0..self.ranks.len()).all(|r| self.waiting(r))
    }

    /// [`crate::engine::Engine::held_by_sends`].
    pub(crate) fn held_by_sends(&self, stuck: &[bool], gated: impl Fn(Rank) -> bool) -> bool {
        let mut held = false;
        for (r, st) in self.ranks.iter().enumerate() {
            if !st.blocked.is_empty() || st.finalized || gated(r) {
                continue;
            }
            let unmatched = self
                .sends
                .iter()
                .any(|(&(_, from, _), q)| from == r && !q.is_empty());
            if !stuck.get(r).copied().unwrap_or(false) || !unmatched {
                return false;
            }
            held = true;
        }
        held
    }

    /// The wildcard receives whose request was freed and that a send could
    /// still match, as choice points: with every rank in `MPI_Finalize`,
    /// they are matched before the run ends, as MPI completes them.
    pub(crate) fn freed_points(&self) -> Vec<ChoicePoint> {
        let mut points = Vec::new();
        self.wildcard_points(&mut points);
        points.retain(|p| self.ranks[p.at.rank].freed.contains(&p.at.index));
        points
    }

    /// With every rank waiting: the choice points (wildcard receives and
    /// probes with candidates, `Waitany`/`Waitsome` with complete requests)
    /// and the ranks that poll with nothing to find.
    pub(crate) fn choice_points(&self) -> (Vec<ChoicePoint>, Vec<OpId>) {
        let mut points: Vec<ChoicePoint> = Vec::new();
        let mut polls: Vec<OpId> = Vec::new();
        self.wildcard_points(&mut points);
        self.cancel_points(&mut points);
        for (r, st) in self.ranks.iter().enumerate() {
            for &i in &st.blocked {
                self.blocked_point(r, i, &mut points, &mut polls);
            }
        }
        (points, polls)
    }

    /// The choice point or the failing poll of the call `i` rank `r` waits
    /// in, if it has one.
    fn blocked_point(
        &self,
        r: Rank,
        i: usize,
        points: &mut Vec<ChoicePoint>,
        polls: &mut Vec<OpId>,
    ) {
        let st = &self.ranks[r];
        {
            let op = &st.ops[i];
            let at = OpId { rank: r, index: i };
            match &op.kind {
                Kind::Probe {
                    src,
                    tag,
                    comm,
                    blocking,
                } => {
                    let before = self.recvs.get(&(*comm, r)).map_or(0, Vec::len);
                    let c = self.candidates(*comm, r, *src, *tag, before);
                    if !c.is_empty() {
                        points.push(ChoicePoint {
                            at,
                            site: op.site,
                            alternatives: c.into_iter().map(Alternative::Send).collect(),
                        });
                    } else if !blocking {
                        polls.push(at);
                    }
                }
                Kind::Recv { src, tag, comm, .. } if st.polls.contains(&i) && !op.complete => {
                    // An `MPI_Improbe` with a send to take is a pair (named
                    // source) or a choice point (wildcard) already.
                    let pos = self
                        .recvs
                        .get(&(*comm, r))
                        .and_then(|p| p.iter().position(|&x| x == i))
                        .unwrap_or(0);
                    if self.candidates(*comm, r, *src, *tag, pos).is_empty() {
                        polls.push(at);
                    }
                }
                Kind::Wait { kind, ops, test } => {
                    let done: Vec<u32> = ops
                        .iter()
                        .enumerate()
                        .filter(|(_, &o)| st.ops[o].complete)
                        .map(|(k, _)| k as u32)
                        .collect();
                    // A point even with one complete request: a request
                    // that completes later may race with it (see
                    // `causality::completion_races`).
                    match kind {
                        WaitKind::Any if !done.is_empty() => points.push(ChoicePoint {
                            at,
                            site: op.site,
                            alternatives: done.into_iter().map(Alternative::Index).collect(),
                        }),
                        WaitKind::Some if !done.is_empty() => points.push(ChoicePoint {
                            at,
                            site: op.site,
                            alternatives: some_subsets(&done)
                                .into_iter()
                                .map(Alternative::Subset)
                                .collect(),
                        }),
                        _ if *test => polls.push(at),
                        _ => {}
                    }
                }
                Kind::Win { .. } if self.window_poll(at) => polls.push(at),
                _ => {}
            }
        }
    }

    /// The wildcard receives anywhere (pending nonblocking ones included)
    /// that have candidates.
    fn wildcard_points(&self, points: &mut Vec<ChoicePoint>) {
        for (&(comm, dst), pending) in &self.recvs {
            for (pos, &ri) in pending.iter().enumerate() {
                let op = &self.ranks[dst].ops[ri];
                let Kind::Recv { src, tag, .. } = op.kind else {
                    unreachable!()
                };
                if src == Peer::Any {
                    let c = self.candidates(comm, dst, src, tag, pos);
                    if !c.is_empty() {
                        points.push(ChoicePoint {
                            at: OpId {
                                rank: dst,
                                index: ri,
                            },
                            site: op.site,
                            alternatives: c.into_iter().map(Alternative::Send).collect(),
                        });
                    }
                }
            }
        }
    }

    /// Each receive the program asked to cancel, not matched yet, may be
    /// cancelled now: [`Alternative::Cancel`] joins the sends a wildcard
    /// one could take (its point in `points`), and is alone otherwise (a
    /// receive naming its source and with a send to take has matched
    /// already).
    fn cancel_points(&self, points: &mut Vec<ChoicePoint>) {
        for (rank, st) in self.ranks.iter().enumerate() {
            for &index in &st.cancelling {
                let at = OpId { rank, index };
                match points.iter_mut().find(|p| p.at == at) {
                    Some(p) => p.alternatives.push(Alternative::Cancel),
                    None => points.push(ChoicePoint {
                        at,
                        site: st.ops[index].site,
                        alternatives: vec![Alternative::Cancel],
                    }),
                }
            }
        }
    }

    /// Answers every poll in `polls` "not yet".
    pub(crate) fn fail_polls(&mut self, polls: Vec<OpId>) {
        for at in polls {
            let (r, i) = (at.rank, at.index);
            self.unblock(at);
            let d = match self.ranks[r].ops[i].kind {
                Kind::Probe { .. } => Down::Probed {
                    found: false,
                    src: PROC_NULL,
                    tag: ANY,
                },
                Kind::Recv { comm, .. } => {
                    // An `MPI_Improbe` that found nothing: it is over, and
                    // takes no message.
                    if let Some(p) = self.recvs.get_mut(&(comm, r)) {
                        p.retain(|&x| x != i);
                        if p.is_empty() {
                            self.recvs.remove(&(comm, r));
                        }
                    }
                    self.ranks[r].ops[i].complete = true;
                    Down::Probed {
                        found: false,
                        src: PROC_NULL,
                        tag: ANY,
                    }
                }
                _ => Down::Done { indices: vec![] },
            };
            self.out.push((at, d));
        }
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::{Op, SendMode, COMM_WORLD};

    use super::*;
    use crate::engine::matching::testing::{call, recv, send};

    #[test]
    fn an_earlier_receive_claims_the_send_it_accepts() {
        let mut m = Matching::new(3);
        let _named = call(&mut m, 0, recv(1, 5, 1));
        let any = call(&mut m, 0, recv(ANY, ANY, 2));
        let s1 = call(&mut m, 1, send(0, 5));
        let s2 = call(&mut m, 2, send(0, 9));
        // Rank 1's send goes to the named receive; the wildcard receive can
        // only get rank 2's.
        let (points, polls) = m.choice_points();
        assert!(polls.is_empty());
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].at, any);
        assert_eq!(points[0].alternatives, vec![Alternative::Send(s2)]);
        assert_eq!(m.named_pair().map(|p| p.0), Some(s1));
    }

    #[test]
    fn waitsome_points_offer_subsets_and_failing_polls_are_listed() {
        let mut m = Matching::new(2);
        for q in 1..=2 {
            call(
                &mut m,
                0,
                Op::Send {
                    mode: SendMode::Standard,
                    dest: 1,
                    tag: 0,
                    comm: COMM_WORLD,
                    req: Some(q),
                },
            );
        }
        let w = call(
            &mut m,
            0,
            Op::Wait {
                kind: WaitKind::Some,
                reqs: vec![1, 2],
            },
        );
        let probe = call(
            &mut m,
            1,
            Op::Probe {
                src: 0,
                tag: 9,
                comm: COMM_WORLD,
                blocking: false,
            },
        );
        let (points, polls) = m.choice_points();
        assert_eq!(polls, vec![probe]);
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].at, w);
        assert_eq!(
            points[0].alternatives,
            vec![
                Alternative::Subset(vec![0, 1]),
                Alternative::Subset(vec![0]),
                Alternative::Subset(vec![1]),
            ]
        );
        m.fail_polls(polls);
        assert_eq!(
            m.take_out(),
            vec![(
                1,
                Down::Probed {
                    found: false,
                    src: PROC_NULL,
                    tag: ANY
                }
            )]
        );
    }

    #[test]
    fn subsets_beyond_the_cap_are_all_or_one() {
        assert_eq!(some_subsets(&[2, 5]), vec![vec![2, 5], vec![2], vec![5]]);
        let many: Vec<u32> = (0..SOME_SUBSETS_UP_TO as u32 + 1).collect();
        let s = some_subsets(&many);
        assert_eq!(s.len(), many.len() + 1);
        assert_eq!(s[0], many);
        assert_eq!(some_subsets(&[1, 2, 3]).len(), 7);
    }
}
