//! Completions: the answers of waits and tests over the requests a rank
//! holds. A wait whose answer is fixed (every request of an `MPI_Wait` or
//! `MPI_Waitall` complete, the only request of a `Waitany` or `Waitsome`
//! complete) is ready as soon as that holds ([`Matching::ready`]);
//! completing it releases the requests it returns and records the
//! completion. The answers that are choices are those of the `choices`
//! module.

use fib_wire::{Down, WaitKind};

use super::Matching;
use crate::engine::model::{Fired, Kind, OpId, Rank};

impl Matching {
    /// The positions the wait or test of rank `r` over its operations `ops`
    /// returns, if that no longer depends on anything still to come: all
    /// of them, once all are complete, for an `MPI_Wait` or `MPI_Waitall`
    /// (or test form), and the only one of a `Waitany` or `Waitsome` list
    /// of one request once it is complete. Longer lists of `Waitany` and
    /// `Waitsome` are choices ([`Matching::choice_points`]).
    pub(super) fn wait_returns(&self, r: Rank, kind: WaitKind, ops: &[usize]) -> Option<Vec<u32>> {
        let done: Vec<bool> = ops.iter().map(|&o| self.ranks[r].ops[o].complete).collect();
        let all = done.iter().all(|&d| d);
        match kind {
            WaitKind::One | WaitKind::All if all => Some((0..ops.len() as u32).collect::<Vec<_>>()),
            // One request in the list: nothing to choose.
            WaitKind::Any | WaitKind::Some if ops.len() == 1 && all => Some(vec![0]),
            _ => None,
        }
    }

    /// Marks the test `id` (an `MPI_Request_get_status`) as one that
    /// leaves its request active.
    pub(crate) fn mark_peek(&mut self, id: OpId) {
        self.ranks[id.rank].peeks.insert(id.index);
    }

    /// Whether `at` is a `Waitany`/`Waitsome` (or test form) of `req`'s rank
    /// whose list holds `req`.
    pub(crate) fn lists(&self, at: OpId, req: OpId) -> bool {
        at.rank == req.rank
            && matches!(&self.op(at).kind,
                Kind::Wait { kind: WaitKind::Any | WaitKind::Some, ops, .. }
                    if ops.contains(&req.index))
    }

    /// Completes the wait or test `id`, returning the positions `indices` of
    /// its list: releases their requests. Returns the answer and the
    /// operations it completed.
    pub(crate) fn complete_wait(&mut self, id: OpId, indices: Vec<u32>) -> (Down, Vec<OpId>) {
        let Kind::Wait { ops, .. } = &self.ranks[id.rank].ops[id.index].kind else {
            unreachable!()
        };
        let completed: Vec<usize> = indices.iter().map(|&k| ops[k as usize]).collect();
        let st = &mut self.ranks[id.rank];
        if st.peeks.contains(&id.index) {
            // `MPI_Request_get_status`: the request stays active, and the
            // wait or test that completes it is the completion.
            st.ops[id.index].complete = true;
            let seen = completed
                .iter()
                .map(|&index| OpId {
                    rank: id.rank,
                    index,
                })
                .collect();
            return (Down::Done { indices }, seen);
        }
        for &o in &completed {
            let req = match st.ops[o].kind {
                Kind::Send { req, .. } | Kind::Coll { req, .. } => req,
                Kind::Recv { req, .. } => Some(req),
                Kind::Rma(ref a) => a.req,
                _ => None,
            };
            if let Some(q) = req {
                st.reqs.remove(&q);
            }
            // The rank learns the communicator an `MPI_Comm_idup` made
            // ahead of the answer that completes it.
            if let Some(c) = st.made.remove(&o) {
                self.out.push((id, Down::NewComm { id: c as i32 }));
            }
        }
        st.ops[id.index].complete = true;
        let completed: Vec<OpId> = completed
            .iter()
            .map(|&index| OpId {
                rank: id.rank,
                index,
            })
            .collect();
        self.fired.push(Fired::Completion {
            op: id,
            completed: completed.clone(),
        });
        (Down::Done { indices }, completed)
    }

    /// Whether `rank` waits in a test (or `MPI_Request_get_status`) whose
    /// list holds its operation `index`.
    pub(crate) fn tests(&self, rank: Rank, index: usize) -> bool {
        let st = &self.ranks[rank];
        st.blocked.iter().any(|&b| {
            matches!(&st.ops[b].kind, Kind::Wait { test: true, ops, .. } if ops.contains(&index))
        })
    }
}

#[cfg(test)]
mod tests {
    use fib_wire::Op;

    use super::*;
    use crate::engine::matching::testing::{call, recv, send};
    use crate::engine::matching::Ready;

    #[test]
    fn waits_are_ready_when_their_requests_complete() {
        let mut m = Matching::new(2);
        let r = call(&mut m, 1, recv(0, 0, 4));
        let w = call(
            &mut m,
            1,
            Op::Wait {
                kind: WaitKind::All,
                reqs: vec![4],
            },
        );
        assert_eq!(m.ready(1), None);
        let s = call(&mut m, 0, send(1, 0));
        m.match_pair(&m.pair(s, r), false);
        assert_eq!(m.ready(1), Some(Ready::Wait(w, vec![0])));
        let (down, done) = m.complete_wait(w, vec![0]);
        assert_eq!(down, Down::Done { indices: vec![0] });
        assert_eq!(done, vec![r]);
        assert!(m.buffered_send(s));
        m.release(w, down);
        assert!(m.leaks().is_empty());
    }
}
