//! Rows of `MPI_Waitany`: calls that take a list's requests one at a time
//! in whatever order they complete, when which one each call returns
//! cannot change what follows, so that one run stands for every order.
//!
//! `for (i = 0; i < n; i++) MPI_Waitany(n, reqs, &idx, &st);` gives POE a
//! choice point at every call with more than one complete request, and a
//! full exploration runs every order: n! runs when the n requests are
//! complete before the first call, multiplied by every other such row. When
//! what the calls return (the index and the status) reaches no condition
//! on the way to an MPI call, no argument of one and no exit (a static
//! fact about the call's site that the caller vouches for, see
//! [`crate::engine::Engine::conclude`]), the orders differ in which call of
//! the row returned which request and in nothing else, provided that, on
//! the finished run, the row `w_1..w_k` of one rank's consecutive calls is
//!
//! 1. `MPI_Waitany` calls (not tests) at such sites, with nothing between
//!    them (local calls such as `MPI_Get_count` are not operations of the
//!    engine), and
//! 2. whose lists are the first one's list less what the calls before
//!    returned, so that together they complete exactly that list, which
//!    has k ≥ 2 requests.
//!
//! Then every order completes the same requests by the end of the row, and
//! the rank's calls after it are the same in every order. Which request a
//! call returns is decided when every rank waits and changes nothing another
//! rank sees, so the rest of the run is the same too: the same matches, the
//! same ending, and any completion order MPI allows (each request completes
//! independently of the row, which makes no other call) is one of them. The
//! completes-before paths that the Fib pass follows out of a request of the
//! row run through the row to after it in every order, so the barrier
//! verdicts do not change either. The run marks every other alternative at
//! the row's choice points as predicted, and wakes none of their
//! deferrals: a deferral only lets other requests complete first, another
//! order of the same row.

use fib_wire::{Site, WaitKind};
use rustc_hash::FxHashMap;

use super::matching::Matching;
use super::model::{Fired, Kind, OpId, OpRec};

/// A row of `MPI_Waitany` calls that one run stands for in every order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitRow {
    /// The calls, in program order.
    pub waits: Vec<OpId>,
    /// The request each returned in this run, in the same order; any
    /// arrangement of them is an order the run stands for.
    pub requests: Vec<OpId>,
}

/// The rows of a finished run; `free(site)`: whether what an `MPI_Waitany`
/// made there returns reaches nothing MPI sees.
pub(crate) fn rows(m: &Matching, free: &dyn Fn(Site) -> bool) -> Vec<WaitRow> {
    let list = |op: &OpRec| match &op.kind {
        Kind::Wait {
            kind: WaitKind::Any,
            ops,
            test: false,
        } if free(op.site) => Some(ops.clone()),
        _ => None,
    };
    let mut returned: FxHashMap<OpId, &[OpId]> = FxHashMap::default();
    let mut out = Vec::new();
    for rank in 0..m.nprocs() {
        let ops = m.ops(rank);
        let mut i = 0;
        while i < ops.len() {
            let Some(mut left) = list(&ops[i]).filter(|l| l.len() >= 2) else {
                i += 1;
                continue;
            };
            if returned.is_empty() {
                for f in m.fired() {
                    if let Fired::Completion { op, completed } = f {
                        returned.insert(*op, completed);
                    }
                }
            }
            left.sort_unstable();
            let mut row = WaitRow {
                waits: Vec::new(),
                requests: Vec::new(),
            };
            let mut j = i;
            while !left.is_empty() && j < ops.len() {
                let at = OpId { rank, index: j };
                let Some(mut l) = list(&ops[j]) else { break };
                l.sort_unstable();
                match returned.get(&at).copied() {
                    Some(&[r]) if l == left => {
                        left.retain(|&x| x != r.index);
                        row.waits.push(at);
                        row.requests.push(r);
                    }
                    _ => break,
                }
                j += 1;
            }
            if left.is_empty() {
                out.push(row);
                i = j;
            } else {
                i += 1;
            }
        }
    }
    out
}
