//! The arguments that calls which match each other must agree on: the
//! datatype a send's data is made of and the one its receive expects, and
//! the type signatures and reduction operation of the members of one
//! collective, blocking or not: the count, datatype and operation every
//! member gives alike (`MPI_Bcast`, `MPI_Allgather`'s receive, the
//! reductions; the counts by rank of `MPI_Allgatherv` and
//! `MPI_Reduce_scatter`), and each member's block of a gather or scatter
//! against the root's for it (its `recvcounts[i]` for `MPI_Gatherv`).
//! Intercommunicators, `MPI_Alltoallv`/`w` (whose check would need every
//! rank's two arrays) and the neighbourhood collectives (whose counts
//! concern each rank's neighbours) are not compared. MPI libraries do not
//! check them (an `MPI_INT` received as
//! `MPI_FLOAT` arrives as garbage), so the engine does when the match set
//! forms. A rank reports a call's arguments as [`Op::Args`] before the
//! call, once for as long as they stay the same: they hold for each later
//! send, receive and collective of the rank until the next report. Calls
//! reported without them (simulated programs, calls whose datatype fib
//! cannot name) are not compared.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use fib_wire::{CollKind, Op};

use super::model::{CollWhat, Differs, Kind, Mismatch, OpId, OpRec, Peer, Rank};

/// What a call's data is made of ([`Op::Args`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Args {
    dtype: String,
    count: i64,
    op: String,
    /// Elements by rank of the communicator (`MPI_Gatherv`'s root, ...).
    counts: Vec<i64>,
}

/// Each rank's arguments reported last, and those of every send, receive
/// and collective not yet matched.
#[derive(Default)]
pub(crate) struct Params {
    next: HashMap<Rank, Arc<Args>>,
    of: HashMap<OpId, Arc<Args>>,
    /// Those of every `MPI_ANY_SOURCE` receive, and of every receive right
    /// after a probe with `MPI_ANY_SOURCE`, kept to the run's end.
    wildcards: HashMap<OpId, Arc<Args>>,
    /// The receives right after such a probe, and every matched probe, not
    /// matched yet, and then the send each got with its arguments.
    probed: HashMap<OpId, Option<(OpId, Arc<Args>)>>,
}

/// Datatypes that match any other in point-to-point communication.
fn untyped(dtype: &str) -> bool {
    dtype.is_empty() || dtype == "MPI_BYTE" || dtype == "MPI_PACKED"
}

impl Params {
    /// Takes `op` if it is [`Op::Args`] (for `rank`'s next call).
    pub(crate) fn take(&mut self, rank: Rank, op: &Op) -> bool {
        let Op::Args {
            dtype,
            count,
            op,
            counts,
        } = op
        else {
            return false;
        };
        self.next.insert(
            rank,
            Arc::new(Args {
                dtype: dtype.clone(),
                count: *count,
                op: op.clone(),
                counts: counts.clone(),
            }),
        );
        true
    }

    /// `rank` issued the call `id` of `kind`: a send, receive or
    /// collective takes the arguments the rank reported last. `probed`: a
    /// receive right after a probe with `MPI_ANY_SOURCE`, whose arguments
    /// (and its send's) are kept to the run's end.
    pub(crate) fn issued(&mut self, id: OpId, kind: &Kind, probed: bool) {
        let data = matches!(
            kind,
            Kind::Send { .. }
                | Kind::Recv { .. }
                | Kind::Coll {
                    what: CollWhat::Coll { .. },
                    ..
                }
        );
        if let (true, Some(a)) = (data, self.next.get(&id.rank)) {
            self.of.insert(id, a.clone());
            if probed || matches!(kind, Kind::Recv { src: Peer::Any, .. }) {
                self.wildcards.insert(id, a.clone());
            }
            if probed {
                self.probed.insert(id, None);
            }
        }
    }

    /// Whether the `MPI_ANY_SOURCE` receives `recvs` take any message
    /// alike: the same count of the same named datatype, or (simulated
    /// programs) no arguments reported for any of them.
    pub(crate) fn alike(&self, recvs: &[OpId]) -> bool {
        let args: Vec<Option<&Arc<Args>>> = recvs.iter().map(|r| self.wildcards.get(r)).collect();
        match args.first() {
            Some(Some(first)) => {
                !first.dtype.is_empty()
                    && args.iter().all(|a| {
                        a.is_some_and(|a| a.dtype == first.dtype && a.count == first.count)
                    })
            }
            _ => args.iter().all(Option::is_none),
        }
    }

    /// Whether each of the receives `recvs` (each right after a probe with
    /// `MPI_ANY_SOURCE`) was made for the message it got: the same count of
    /// the same named datatype as the send, all of one datatype; or
    /// (simulated programs) no arguments reported for any of them.
    pub(crate) fn fitted(&self, recvs: &[OpId]) -> bool {
        let Some(first) = recvs.first() else {
            return true;
        };
        match self.wildcards.get(first) {
            Some(first) => {
                !first.dtype.is_empty()
                    && recvs.iter().all(|r| {
                        match (
                            self.wildcards.get(r),
                            self.probed.get(r).and_then(Option::as_ref).map(|(_, s)| s),
                        ) {
                            (Some(r), Some(s)) => {
                                r.dtype == first.dtype && s.dtype == r.dtype && s.count == r.count
                            }
                            _ => false,
                        }
                    })
            }
            None => recvs.iter().all(|r| !self.wildcards.contains_key(r)),
        }
    }

    /// A send and its receive whose datatypes differ (their arguments are
    /// not needed after this).
    pub(crate) fn pair(&mut self, send: OpId, recv: OpId) -> Option<Mismatch> {
        let (s, r) = (self.of.remove(&send), self.of.remove(&recv));
        if let (Some(s), Some(kept)) = (&s, self.probed.get_mut(&recv)) {
            *kept = Some((send, s.clone()));
        }
        differ(send, s.as_deref()?, recv, r.as_deref()?)
    }

    /// `id` is a matched probe (`MPI_Mprobe`, `MPI_Improbe`), which
    /// matches as a receive but gives no data arguments: the arguments of
    /// the send it takes are kept for the `MPI_Mrecv` of its message.
    pub(crate) fn matched_probe(&mut self, id: OpId) {
        self.probed.insert(id, None);
    }

    /// `recv` receives the message the matched probe `probe` took
    /// (`MPI_Mrecv`, `MPI_Imrecv`): its arguments are the probe's from now
    /// on (a row of matched probes takes messages alike, or fits each, by
    /// them), and their datatype must be the send's.
    pub(crate) fn mrecv(&mut self, recv: OpId, probe: OpId) -> Option<Mismatch> {
        let r = self.of.remove(&recv)?;
        self.wildcards.insert(probe, r.clone());
        let (send, s) = self.probed.get(&probe)?.clone()?;
        differ(send, &s, recv, &r)
    }

    /// The members of one collective, if they disagree on the arguments
    /// MPI requires them to give alike (their arguments are not needed
    /// after this). `ops` are the members in the communicator's rank order.
    pub(crate) fn collective(&mut self, ops: &[(OpId, &OpRec)]) -> Option<Mismatch> {
        let args: Vec<Option<Arc<Args>>> = ops.iter().map(|(id, _)| self.of.remove(id)).collect();
        let (kind, root) = match ops.first()?.1.kind {
            Kind::Coll {
                what: CollWhat::Coll { kind, root },
                ..
            } => (kind.blocking_form(), root),
            _ => return None,
        };
        let reduces = match kind {
            CollKind::Bcast | CollKind::Allgather | CollKind::Alltoall | CollKind::Allgatherv => {
                false
            }
            CollKind::Reduce
            | CollKind::Allreduce
            | CollKind::Scan
            | CollKind::Exscan
            | CollKind::ReduceScatter
            | CollKind::ReduceScatterBlock => true,
            CollKind::Gather | CollKind::Scatter | CollKind::Gatherv | CollKind::Scatterv => {
                let gather = matches!(kind, CollKind::Gather | CollKind::Gatherv);
                let v = matches!(kind, CollKind::Gatherv | CollKind::Scatterv);
                return rooted(ops, &args, usize::try_from(root).ok()?, gather, v);
            }
            _ => return None,
        };
        let args: Vec<(OpId, &Args)> = ops
            .iter()
            .zip(&args)
            .map(|((id, _), a)| a.as_deref().map(|a| (*id, a)))
            .collect::<Option<_>>()?;
        let differ = |f: &dyn Fn(&Args) -> String, differs| {
            let first = f(args[0].1);
            args.iter().any(|(_, a)| f(a) != first).then(|| Mismatch {
                differs,
                values: args.iter().map(|(id, a)| (*id, f(a))).collect(),
            })
        };
        let named = args.iter().all(|(_, a)| !untyped(&a.dtype));
        if named {
            if let Some(m) = differ(&|a| a.dtype.clone(), Differs::Datatype) {
                return Some(m);
            }
            // The `v` forms give a count by rank, which every member gives
            // alike (`MPI_Allgatherv`'s `recvcounts`, `MPI_Reduce_scatter`'s).
            let count = |a: &Args| {
                if a.counts.is_empty() {
                    a.count.to_string()
                } else {
                    format!("{:?}", a.counts)
                }
            };
            if let Some(m) = differ(&count, Differs::Count) {
                return Some(m);
            }
        }
        if reduces && args.iter().all(|(_, a)| !a.op.is_empty()) {
            return differ(&|a| a.op.clone(), Differs::Operation);
        }
        None
    }
}

/// A gather's (`gather`) or scatter's members, in rank order, with their
/// arguments: the root's describe its side (each rank's block, or with
/// `v`, `counts` the blocks by rank), every other member's its own send
/// (gather) or receive (scatter), whose type signature must be the
/// root's block for it. Members whose datatype fib cannot name, and empty
/// blocks on both sides, are not compared; every member that differs is
/// listed after the root.
fn rooted(
    ops: &[(OpId, &OpRec)],
    args: &[Option<Arc<Args>>],
    root: usize,
    gather: bool,
    v: bool,
) -> Option<Mismatch> {
    let r = args.get(root)?.as_deref()?;
    let by_rank = if v { ops.len() } else { 0 };
    if untyped(&r.dtype) || r.counts.len() != by_rank {
        return None;
    }
    let block = |i: usize| r.counts.get(i).copied().unwrap_or(r.count);
    let (at_root, at_member) = if gather {
        ("recv", "send")
    } else {
        ("send", "recv")
    };
    // The members compared: not the root, named, not empty on both sides.
    let others: Vec<(usize, OpId, &Args)> = ops
        .iter()
        .zip(args)
        .enumerate()
        .filter(|(i, _)| *i != root)
        .filter_map(|(i, ((id, _), a))| {
            let a = a.as_deref()?;
            (!untyped(&a.dtype) && (a.count != 0 || block(i) != 0)).then_some((i, *id, a))
        })
        .collect();
    let (differs, root_value, wrong): (_, _, Vec<(OpId, String)>) =
        if others.iter().any(|(_, _, a)| a.dtype != r.dtype) {
            (
                Differs::Datatype,
                format!("{at_root}type {}", r.dtype),
                others
                    .iter()
                    .filter(|(_, _, a)| a.dtype != r.dtype)
                    .map(|(_, id, a)| (*id, format!("{at_member}type {}", a.dtype)))
                    .collect(),
            )
        } else {
            let wrong: Vec<_> = others
                .iter()
                .filter(|(i, _, a)| a.count != block(*i))
                .map(|(_, id, a)| (*id, format!("{at_member}count {}", a.count)))
                .collect();
            let root_value = if r.counts.is_empty() {
                format!("{at_root}count {}", r.count)
            } else {
                format!("{at_root}counts {:?}", r.counts)
            };
            (Differs::Count, root_value, wrong)
        };
    if wrong.is_empty() {
        return None;
    }
    let mut values = vec![(ops[root].0, root_value)];
    values.extend(wrong);
    values.sort_by_key(|(id, _)| id.rank);
    Some(Mismatch { differs, values })
}

/// The mismatch of a send's arguments `s` and its receive's `r`, if their
/// datatypes differ (an empty message, or untyped data, matches any).
fn differ(send: OpId, s: &Args, recv: OpId, r: &Args) -> Option<Mismatch> {
    if untyped(&s.dtype) || untyped(&r.dtype) || s.dtype == r.dtype || s.count == 0 {
        return None;
    }
    Some(Mismatch {
        differs: Differs::Datatype,
        values: vec![(send, s.dtype.clone()), (recv, r.dtype.clone())],
    })
}
