//! The threads of a rank that has several. MPI orders the calls of a
//! rank's threads only as they enter the library: a run of the program
//! is as if they were made one after another, in some order the threads'
//! own timing picks (MPI 4.1, §11.6.2). The engine makes that order
//! explicit. A call of such a rank waits at the rank's *gate* until the
//! engine *enters* it into the rank's sequence of calls; from there on,
//! MPI's rules (non-overtaking, the order of collectives) read that
//! sequence as they read a rank of one thread, and a blocking call blocks
//! only its own thread.
//!
//! The order of entry is free only between calls that no other thread of
//! the rank can still come before: the engine enters a rank's gated calls
//! once none of its threads runs (each waits at the gate, waits in an
//! entered call, or has ended). Then:
//! - with no thread of the rank waiting in an entered call, the gated
//!   calls are all the rank can do next: if no two of them depend on each
//!   other's place ([`independent`]), they enter in thread order, and
//!   otherwise which enters first is a choice ([`Alternative::Enter`]);
//! - with a thread waiting in an entered call, a call that thread makes
//!   once it is answered may enter before the gated ones, if what answers
//!   it can come first: the engine decides with every rank waiting, and
//!   the choice may leave the gated calls for later
//!   ([`Alternative::Later`]) while another choice is taken first.
//!
//! This module keeps the bookkeeping: each thread's state, the calls at
//! the gate, which thread made each entered call, and the causal state of
//! the threads not running in the engine's [`super::causality`].

use std::collections::BTreeMap;
use std::rc::Rc;

use fib_wire::{Op, Site, ANY};

use super::causality::Deps;
use super::matching::Matching;
use super::model::{accepts, Alternative, Kind, OpId, Peer, Rank};

/// Where one thread stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Between calls: it may make one at any time.
    Running,
    /// Its call waits at the gate.
    Gated,
    /// It waits in the entered call at this position of the rank's calls.
    Blocked(usize),
    /// It waits outside MPI for another thread of its rank (a join, a
    /// lock): it makes no call until one of them has gone on.
    Parked,
}

/// The threads of one rank that has had several.
pub(crate) struct RankThreads {
    /// The threads that have not ended.
    pub(crate) state: BTreeMap<u32, State>,
    /// Each thread's call at the gate, after the reports that go with it
    /// (`Op::Args`, `Op::Exchange`).
    pub(crate) gated: BTreeMap<u32, Vec<(Site, Op)>>,
    /// The thread that made each of the rank's entered calls.
    of_op: Vec<u32>,
    /// The entered calls a choice entered, with the choice.
    chosen: BTreeMap<usize, usize>,
    /// The thread whose causal state the engine's causality holds for the
    /// rank, and the others' own.
    pub(crate) current: u32,
    pub(crate) deps: BTreeMap<u32, Rc<Deps>>,
    /// The rank's gated calls were left for later at the last choice
    /// ([`Alternative::Later`]): not offered again until another choice.
    pub(crate) later: bool,
}

impl RankThreads {
    /// A rank whose main thread has made `made` calls so far, all entered.
    fn new(made: usize) -> RankThreads {
        RankThreads {
            state: [(0, State::Running)].into_iter().collect(),
            gated: BTreeMap::new(),
            of_op: vec![0; made],
            chosen: BTreeMap::new(),
            current: 0,
            deps: BTreeMap::new(),
            later: false,
        }
    }

    /// The thread that made the rank's entered call at `index`.
    pub(crate) fn thread_of(&self, index: usize) -> u32 {
        self.of_op.get(index).copied().unwrap_or(0)
    }

    /// Thread `t` made the entered call at `index`, which the `by`-th
    /// choice of the run entered, if one did.
    pub(crate) fn entered(&mut self, t: u32, index: usize, by: Option<usize>) {
        if self.of_op.len() <= index {
            self.of_op.resize(index + 1, 0);
        }
        self.of_op[index] = t;
        if let Some(k) = by {
            self.chosen.insert(index, k);
        }
    }

    /// The choice that entered the call at `index`, if one did.
    pub(crate) fn chosen(&self, index: usize) -> Option<usize> {
        self.chosen.get(&index).copied()
    }

    /// Whether none of the rank's threads runs.
    pub(crate) fn quiet(&self) -> bool {
        self.state.values().all(|s| *s != State::Running)
    }

    /// Whether some thread waits in an entered call.
    pub(crate) fn any_blocked(&self) -> bool {
        self.state.values().any(|s| matches!(s, State::Blocked(_)))
    }

    /// Whether the rank waits: no thread runs, and one waits at the gate
    /// or in a call.
    pub(crate) fn waiting(&self) -> bool {
        self.quiet() && (self.state.values()).any(|s| matches!(s, State::Gated | State::Blocked(_)))
    }

    /// The calls at the gate, by thread.
    pub(crate) fn gated_calls(&self) -> impl Iterator<Item = (u32, &Op)> {
        self.gated
            .iter()
            .filter_map(|(&t, list)| list.last().map(|(_, op)| (t, op)))
    }
}

/// Every rank's threads, for the ranks that have had several.
#[derive(Default)]
pub(crate) struct Threads {
    ranks: Vec<Option<RankThreads>>,
}

impl Threads {
    /// The threads of `rank`, if it has had several.
    pub(crate) fn of(&self, rank: Rank) -> Option<&RankThreads> {
        self.ranks.get(rank).and_then(Option::as_ref)
    }

    pub(crate) fn of_mut(&mut self, rank: Rank) -> Option<&mut RankThreads> {
        self.ranks.get_mut(rank).and_then(Option::as_mut)
    }

    /// Whether any rank has had several threads.
    pub(crate) fn any(&self) -> bool {
        self.ranks.iter().any(Option::is_some)
    }

    /// The ranks that have had several threads.
    pub(crate) fn ranks(&self) -> impl Iterator<Item = Rank> + '_ {
        (self.ranks.iter().enumerate()).filter_map(|(r, t)| t.as_ref().map(|_| r))
    }

    /// Every rank's gated calls may be offered again (something else was
    /// done since they were left for later).
    pub(crate) fn clear_later(&mut self) {
        for rt in self.ranks.iter_mut().flatten() {
            rt.later = false;
        }
    }

    /// Thread `t` of `rank` started; the rank has made `made` calls.
    pub(crate) fn start(&mut self, rank: Rank, t: u32, made: usize) {
        if self.ranks.len() <= rank {
            self.ranks.resize_with(rank + 1, || None);
        }
        let rt = self.ranks[rank].get_or_insert_with(|| RankThreads::new(made));
        rt.state.insert(t, State::Running);
    }

    /// The thread of `rank` that made its call at `index` (the main one,
    /// for a rank of one thread).
    pub(crate) fn thread_of(&self, rank: Rank, index: usize) -> u32 {
        self.of(rank).map_or(0, |rt| rt.thread_of(index))
    }
}

/// Whether `kind` is a send to a rank or a receive: calls whose order
/// matters only to a call that could take both (a receive that accepts
/// both sends, a send both receives accept), which the engine sees as
/// they match ([`match_races`]) or enter ([`entry_races`]).
fn observed(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Send {
            dst: Peer::Rank(_),
            ..
        } | Kind::Recv { .. }
    )
}

/// The calls that entered before `h` (just entered for thread `t`) for
/// other threads of its rank by a choice, and whose place `h` depends on:
/// for a send, those a receive already matched took while accepting `h`;
/// for a receive, those that took a send `h` accepts; for other calls,
/// those that are not [`independent`] of it. (A send or receive that
/// enters later and that a matched call could have taken races then; one
/// still unmatched, when the call matches, [`match_races`].)
pub(crate) fn entry_races(m: &Matching, th: &Threads, h: OpId, t: u32) -> Vec<OpId> {
    let Some(rt) = th.of(h.rank) else {
        return Vec::new();
    };
    let kind = &m.op(h).kind;
    let mut out: Vec<OpId> = (rt.chosen.keys())
        .map(|&index| OpId {
            rank: h.rank,
            index,
        })
        .filter(|g| g.index < h.index && rt.thread_of(g.index) != t)
        .filter(|g| {
            let gk = &m.op(*g).kind;
            !(independent(gk, kind) || observed(gk) && observed(kind))
        })
        .collect();
    match *kind {
        Kind::Send {
            dst: Peer::Rank(d),
            tag,
            comm,
            ..
        } => {
            // Receives of `d` that took another thread's send of this rank
            // and accept this one.
            for o in m.ops(d).iter() {
                if let (
                    Kind::Recv {
                        src,
                        tag: rt_,
                        comm: c,
                        ..
                    },
                    Some(s),
                ) = (&o.kind, o.matched)
                {
                    if *c == comm
                        && s.rank == h.rank
                        && rt.thread_of(s.index) != t
                        && accepts(*src, *rt_, h.rank, tag)
                    {
                        out.push(s);
                    }
                }
            }
        }
        Kind::Recv { src, tag, comm, .. } => {
            // Receives of other threads of this rank that took a send this
            // one accepts.
            for (index, o) in m.ops(h.rank).iter().enumerate().take(h.index) {
                if rt.thread_of(index) == t
                    || !matches!(o.kind, Kind::Recv { comm: c, .. } if c == comm)
                {
                    continue;
                }
                let Some(s) = o.matched else { continue };
                if let Kind::Send { tag: st, .. } = m.op(s).kind {
                    if accepts(src, tag, s.rank, st) {
                        out.push(OpId {
                            rank: h.rank,
                            index,
                        });
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The pairs of calls of two threads of one rank whose order the match of
/// `send` and `recv` may tell: the sender's other threads' sends `recv`
/// accepts, and the receiver's other threads' receives that accept
/// `send`, matched or not (in the other order, the other call may be the
/// one that matches here, and its own match go elsewhere).
pub(crate) fn match_races(m: &Matching, th: &Threads, send: OpId, recv: OpId) -> Vec<(OpId, OpId)> {
    let mut out = Vec::new();
    let (Kind::Send { tag, comm, .. }, Kind::Recv { src, tag: rtag, .. }) =
        (&m.op(send).kind, &m.op(recv).kind)
    else {
        return out;
    };
    if let Some(rt) = th.of(send.rank) {
        let t = rt.thread_of(send.index);
        for (index, o) in m.ops(send.rank).iter().enumerate() {
            if let Kind::Send {
                dst: Peer::Rank(d),
                tag: ot,
                comm: c,
                ..
            } = o.kind
            {
                if d == recv.rank
                    && c == *comm
                    && rt.thread_of(index) != t
                    && accepts(*src, *rtag, send.rank, ot)
                {
                    out.push((
                        send,
                        OpId {
                            rank: send.rank,
                            index,
                        },
                    ));
                }
            }
        }
    }
    if let Some(rt) = th.of(recv.rank) {
        let t = rt.thread_of(recv.index);
        for (index, o) in m.ops(recv.rank).iter().enumerate() {
            if let Kind::Recv {
                src: os,
                tag: ot,
                comm: c,
                ..
            } = o.kind
            {
                if c == *comm && rt.thread_of(index) != t && accepts(os, ot, send.rank, *tag) {
                    out.push((
                        recv,
                        OpId {
                            rank: recv.rank,
                            index,
                        },
                    ));
                }
            }
        }
    }
    out
}

/// Whether two entered calls of different threads of one rank give the
/// same outcomes whichever entered first. Sends to different destinations
/// or communicators are (non-overtaking orders a sender's messages per
/// destination and communicator); receives and probes are unless one can
/// take a message the other accepts (a message goes to the earliest posted
/// receive that accepts it); a send and a receive are; collectives on
/// different communicators are, and a collective and a message; completion
/// calls and `MPI_Finalize` are.
/// Anything else is taken as dependent: a race too many costs a run, one
/// too few an outcome.
pub(crate) fn independent(a: &Kind, b: &Kind) -> bool {
    let disjoint = |x: Peer, y: Peer| matches!((x, y), (Peer::Rank(p), Peer::Rank(q)) if p != q);
    match (a, b) {
        // Which call completes a request, and when the rank finalizes
        // (its other threads done with MPI), is not a matter of order.
        (Kind::Wait { .. } | Kind::Finalize, _) | (_, Kind::Wait { .. } | Kind::Finalize) => true,
        (
            Kind::Send {
                dst: d1, comm: c1, ..
            },
            Kind::Send {
                dst: d2, comm: c2, ..
            },
        ) => c1 != c2 || d1 != d2 || *d1 == Peer::Null,
        (Kind::Send { .. }, Kind::Recv { .. } | Kind::Probe { .. })
        | (Kind::Recv { .. } | Kind::Probe { .. }, Kind::Send { .. }) => true,
        // Collectives match in each rank's order per communicator, apart
        // from its messages.
        (Kind::Coll { comm: c1, .. }, Kind::Coll { comm: c2, .. }) => c1 != c2,
        (Kind::Coll { .. }, Kind::Send { .. } | Kind::Recv { .. } | Kind::Probe { .. })
        | (Kind::Send { .. } | Kind::Recv { .. } | Kind::Probe { .. }, Kind::Coll { .. }) => true,
        (
            Kind::Recv {
                src: s1,
                tag: t1,
                comm: c1,
                ..
            }
            | Kind::Probe {
                src: s1,
                tag: t1,
                comm: c1,
                ..
            },
            Kind::Recv {
                src: s2,
                tag: t2,
                comm: c2,
                ..
            }
            | Kind::Probe {
                src: s2,
                tag: t2,
                comm: c2,
                ..
            },
        ) => {
            c1 != c2
                || disjoint(*s1, *s2)
                || *s1 == Peer::Null
                || *s2 == Peer::Null
                || (*t1 != ANY && *t2 != ANY && t1 != t2)
        }
        _ => false,
    }
}

/// The alternatives of an entry point: each gated thread, then, when
/// `later`, leaving them all for later.
pub(crate) fn entry_alternatives(rt: &RankThreads, later: bool) -> Vec<Alternative> {
    (rt.gated_calls().map(|(t, _)| Alternative::Enter(t)))
        .chain(later.then_some(Alternative::Later))
        .collect()
}
