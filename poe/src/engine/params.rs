//! The arguments that calls which match each other must agree on: the
//! datatype a send's data is made of and the one its receive expects, and
//! the type signatures and reduction operation of the members of one
//! collective, blocking or not: the count, datatype and operation every
//! member gives alike (`MPI_Bcast`, `MPI_Allgather`'s receive, the
//! reductions; the counts by rank of `MPI_Allgatherv` and
//! `MPI_Reduce_scatter`), and each member's block of a gather or scatter
//! against the root's for it (its `recvcounts[i]` for `MPI_Gatherv`).
//! `MPI_Alltoallv`/`w` and the neighbourhood collectives, whose counts and
//! datatypes concern each pair of ranks, report their blocks by peer
//! ([`Op::Exchange`]): each rank's block for a peer is compared with that
//! peer's block from it. A datatype that mixes several predefined ones is
//! named by its whole type signature (`[(MPI_INT,2),(MPI_DOUBLE,1)]`, one
//! element of it per count), compared element by element: a receive must
//! begin with its message's signature, a collective's members must give
//! equal ones. Intercommunicators are not compared. MPI libraries do not
//! check them (an `MPI_INT` received as
//! `MPI_FLOAT` arrives as garbage), so the engine does when the match set
//! forms. A rank reports a call's arguments as [`Op::Args`] before the
//! call, once for as long as they stay the same: they hold for each later
//! send, receive and collective of the rank until the next report. Calls
//! reported without them (simulated programs, calls whose datatype fib
//! cannot name) are not compared.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use fib_wire::{Block, CollKind, Op};

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
    /// Each rank's blocks by peer reported for its next collective, and
    /// those of every collective not yet matched ([`Op::Exchange`]).
    next_exchange: HashMap<Rank, Arc<Exchange>>,
    exchanges: HashMap<OpId, Arc<Exchange>>,
}

/// The blocks a collective's member sends to and receives from each peer
/// ([`Op::Exchange`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Exchange {
    sends: Vec<Block>,
    recvs: Vec<Block>,
}

/// Datatypes that match any other in point-to-point communication (and a
/// signature holding one of them, which fib does not compare).
fn untyped(dtype: &str) -> bool {
    dtype.is_empty()
        || dtype == "MPI_BYTE"
        || dtype == "MPI_PACKED"
        || (mixed(dtype) && (dtype.contains("(MPI_BYTE,") || dtype.contains("(MPI_PACKED,")))
}

/// Whether `dtype` is the whole type signature of a datatype that mixes
/// several predefined ones (`[(MPI_INT,2),(MPI_DOUBLE,1)]`) rather than one
/// predefined datatype's name.
fn mixed(dtype: &str) -> bool {
    dtype.starts_with('[')
}

/// The runs of one element of `dtype`: its signature's, or one of the
/// named datatype.
fn runs(dtype: &str) -> Vec<(&str, i64)> {
    if !mixed(dtype) {
        return vec![(dtype, 1)];
    }
    dtype
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split("),(")
        .filter_map(|run| {
            let run = run.trim_start_matches('(').trim_end_matches(')');
            let (name, n) = run.rsplit_once(',')?;
            Some((name, n.parse().ok()?))
        })
        .collect()
}

/// Where the signatures of `count` elements of `a` and `b` elements of `b`
/// first differ, as the element's position, within their common length
/// (`None` when one is a prefix of the other). Both repeat with the period
/// of one element, so only the least common multiple of the two periods
/// is walked (and at most a bounded number of runs of it).
fn first_difference(a: &str, a_count: i64, b: &str, b_count: i64) -> Option<i64> {
    let (ra, rb) = (runs(a), runs(b));
    let period = |r: &[(&str, i64)]| r.iter().map(|(_, n)| n).sum::<i64>();
    let (pa, pb) = (period(&ra), period(&rb));
    if pa <= 0 || pb <= 0 || ra.is_empty() || rb.is_empty() {
        return None;
    }
    let gcd = |mut x: i64, mut y: i64| {
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x
    };
    let lcm = (pa / gcd(pa, pb)).saturating_mul(pb);
    let len = pa
        .saturating_mul(a_count)
        .min(pb.saturating_mul(b_count))
        .min(lcm);
    // The current run of each side and how much of it is left.
    let (mut i, mut j) = (0, 0);
    let (mut left_a, mut left_b) = (ra[0].1, rb[0].1);
    let mut at = 0;
    let mut steps = 0;
    while at < len && steps < 100_000 {
        if ra[i].0 != rb[j].0 {
            return Some(at);
        }
        let step = left_a.min(left_b);
        at += step;
        left_a -= step;
        left_b -= step;
        if left_a == 0 {
            i = (i + 1) % ra.len();
            left_a = ra[i].1;
        }
        if left_b == 0 {
            j = (j + 1) % rb.len();
            left_b = rb[j].1;
        }
        steps += 1;
    }
    None
}

/// Whether `a_count` elements of `a` have the same type signature as
/// `b_count` of `b`.
fn same_signature(a: &str, a_count: i64, b: &str, b_count: i64) -> bool {
    let total = |d: &str, c: i64| {
        runs(d)
            .iter()
            .map(|(_, n)| n)
            .sum::<i64>()
            .saturating_mul(c)
    };
    total(a, a_count) == total(b, b_count) && first_difference(a, a_count, b, b_count).is_none()
}

/// `count` elements of `dtype` as a finding shows them: a signature
/// shortened to its first runs when long, with its count.
fn shown(dtype: &str, count: i64) -> String {
    if !mixed(dtype) {
        return dtype.to_string();
    }
    const SHOWN: usize = 4;
    let r = runs(dtype);
    let mut parts: Vec<String> = r
        .iter()
        .take(SHOWN)
        .map(|(n, k)| format!("({n},{k})"))
        .collect();
    if r.len() > SHOWN {
        parts.push(format!("... {} runs", r.len()));
    }
    let sig = format!("[{}]", parts.join(","));
    if count == 1 {
        sig
    } else {
        format!("{sig} x {count}")
    }
}

impl Params {
    /// Takes `op` if it is [`Op::Args`] (for `rank`'s next call).
    pub(crate) fn take(&mut self, rank: Rank, op: &Op) -> bool {
        if let Op::Exchange { sends, recvs } = op {
            self.next_exchange.insert(
                rank,
                Arc::new(Exchange {
                    sends: sends.clone(),
                    recvs: recvs.clone(),
                }),
            );
            return true;
        }
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
        if matches!(kind, Kind::Coll { .. }) {
            if let Some(x) = self.next_exchange.remove(&id.rank) {
                self.exchanges.insert(id, x);
            }
        }
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
        let exchanges: Vec<Option<Arc<Exchange>>> = ops
            .iter()
            .map(|(id, _)| self.exchanges.remove(id))
            .collect();
        if exchanges.iter().any(Option::is_some) {
            return exchanged(ops, &exchanges);
        }
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
        // A member whose datatype mixes several predefined ones: the whole
        // signatures (count times each element's) must be equal.
        let signatures = args
            .iter()
            .any(|(_, a)| mixed(&a.dtype) && a.counts.is_empty());
        if named && signatures {
            let (_, first) = args[0];
            if args
                .iter()
                .any(|(_, a)| !same_signature(&first.dtype, first.count, &a.dtype, a.count))
            {
                return Some(Mismatch {
                    differs: Differs::Datatype,
                    values: args
                        .iter()
                        .map(|(id, a)| (*id, shown(&a.dtype, a.count)))
                        .collect(),
                });
            }
        } else if named {
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
    // A datatype that mixes several: each member's signature against the
    // root's block for it.
    if mixed(&r.dtype) || others.iter().any(|(_, _, a)| mixed(&a.dtype)) {
        let wrong: Vec<(OpId, String)> = others
            .iter()
            .filter(|(i, _, a)| !same_signature(&a.dtype, a.count, &r.dtype, block(*i)))
            .map(|(_, id, a)| (*id, format!("{at_member} {}", shown(&a.dtype, a.count))))
            .collect();
        if wrong.is_empty() {
            return None;
        }
        let root_value = if r.counts.is_empty() {
            format!("{at_root} {}", shown(&r.dtype, r.count))
        } else {
            format!("{at_root} {} by rank {:?}", shown(&r.dtype, 1), r.counts)
        };
        let mut values = vec![(ops[root].0, root_value)];
        values.extend(wrong);
        values.sort_by_key(|(id, _)| id.rank);
        return Some(Mismatch {
            differs: Differs::Datatype,
            values,
        });
    }
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

/// The first pair of blocks of a collective that exchanges blocks by peer
/// ([`Exchange`]) whose signatures differ: rank `i`'s block for `j` against
/// `j`'s block from `i` with the same key. `ops` and `exchanges` are the
/// members in the communicator's rank order; a member that reported no
/// blocks, a peer outside the communicator, a block with no counterpart,
/// untyped data and empty blocks on both sides are not compared.
fn exchanged(ops: &[(OpId, &OpRec)], exchanges: &[Option<Arc<Exchange>>]) -> Option<Mismatch> {
    for (i, x) in exchanges.iter().enumerate() {
        let Some(x) = x else { continue };
        for s in &x.sends {
            let Some(Some(y)) = usize::try_from(s.peer).ok().and_then(|j| exchanges.get(j)) else {
                continue;
            };
            let Some(r) = y
                .recvs
                .iter()
                .find(|r| r.key == s.key && usize::try_from(r.peer).ok() == Some(i))
            else {
                continue;
            };
            if untyped(&s.dtype) || untyped(&r.dtype) || (s.count == 0 && r.count == 0) {
                continue;
            }
            if same_signature(&s.dtype, s.count, &r.dtype, r.count) {
                continue;
            }
            let kinds_differ = if mixed(&s.dtype) || mixed(&r.dtype) {
                first_difference(&s.dtype, s.count, &r.dtype, r.count).is_some()
            } else {
                s.dtype != r.dtype
            };
            let j = s.peer as usize;
            let value = |verb: &str, b: &Block, other: usize| {
                let what = if mixed(&b.dtype) {
                    shown(&b.dtype, b.count)
                } else {
                    format!("{} {}", b.count, b.dtype)
                };
                format!(
                    "{verb} {what} {} rank {other}",
                    if verb == "sends" { "to" } else { "from" }
                )
            };
            let mut values = vec![
                (ops[i].0, value("sends", s, j)),
                (ops[j].0, value("receives", r, i)),
            ];
            values.sort_by_key(|(id, _)| id.rank);
            return Some(Mismatch {
                differs: if kinds_differ {
                    Differs::Datatype
                } else {
                    Differs::Count
                },
                values,
            });
        }
    }
    None
}

/// The mismatch of a send's arguments `s` and its receive's `r`, if their
/// datatypes differ (an empty message, or untyped data, matches any).
fn differ(send: OpId, s: &Args, recv: OpId, r: &Args) -> Option<Mismatch> {
    if untyped(&s.dtype) || untyped(&r.dtype) || s.dtype == r.dtype || s.count == 0 {
        return None;
    }
    // A datatype that mixes several: the message's signature must begin
    // the receive's (a shorter message is fine, a longer one is MPI's
    // truncation error), so only where both reach is compared.
    if (mixed(&s.dtype) || mixed(&r.dtype))
        && first_difference(&s.dtype, s.count, &r.dtype, r.count).is_none()
    {
        return None;
    }
    Some(Mismatch {
        differs: Differs::Datatype,
        values: vec![
            (send, shown(&s.dtype, s.count)),
            (recv, shown(&r.dtype, r.count)),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIR: &str = "[(MPI_INT,2),(MPI_DOUBLE,1)]";

    #[test]
    fn a_signature_is_read_back_into_its_runs() {
        assert_eq!(runs(PAIR), vec![("MPI_INT", 2), ("MPI_DOUBLE", 1)]);
        assert_eq!(runs("MPI_INT"), vec![("MPI_INT", 1)]);
    }

    #[test]
    fn a_receive_may_take_a_prefix_of_its_signature_but_not_another_order() {
        // Two structs received as one contiguous type of the same two.
        let twice = "[(MPI_INT,2),(MPI_DOUBLE,1),(MPI_INT,2),(MPI_DOUBLE,1)]";
        assert_eq!(first_difference(PAIR, 2, twice, 1), None);
        // One struct sent, three received: the message is a prefix.
        assert_eq!(first_difference(PAIR, 1, PAIR, 3), None);
        // Three ints: the third is a double on the other side.
        assert_eq!(first_difference("MPI_INT", 3, PAIR, 1), Some(2));
        // The double first.
        let swapped = "[(MPI_DOUBLE,1),(MPI_INT,2)]";
        assert_eq!(first_difference(PAIR, 4, swapped, 4), Some(0));
        // The second element differs only after the first period.
        let three = "[(MPI_INT,2),(MPI_DOUBLE,1),(MPI_INT,2),(MPI_FLOAT,1)]";
        assert_eq!(first_difference(PAIR, 2, three, 1), Some(5));
    }

    #[test]
    fn collective_signatures_must_be_equal_in_length_too() {
        let twice = "[(MPI_INT,2),(MPI_DOUBLE,1),(MPI_INT,2),(MPI_DOUBLE,1)]";
        assert!(same_signature(PAIR, 4, twice, 2));
        assert!(!same_signature(PAIR, 3, twice, 2));
        assert!(!same_signature(PAIR, 1, "MPI_INT", 3));
    }

    #[test]
    fn a_long_signature_is_shown_shortened_with_its_count() {
        assert_eq!(shown(PAIR, 1), PAIR);
        assert_eq!(shown(PAIR, 3), format!("{PAIR} x 3"));
        let long =
            "[(MPI_INT,1),(MPI_DOUBLE,1),(MPI_INT,1),(MPI_DOUBLE,1),(MPI_INT,1),(MPI_CHAR,1)]";
        assert_eq!(
            shown(long, 1),
            "[(MPI_INT,1),(MPI_DOUBLE,1),(MPI_INT,1),(MPI_DOUBLE,1),... 6 runs]"
        );
    }

    #[test]
    fn a_signature_with_bytes_is_not_compared() {
        assert!(untyped("[(MPI_INT,1),(MPI_BYTE,4)]"));
        assert!(!untyped(PAIR));
    }
}
