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

use std::collections::{BTreeMap, HashMap};
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
    /// It has run outside MPI for a long while (it computes, or waits in a
    /// way fib is not told of): the rank's other calls enter without
    /// waiting for its next one, but it may still make one, so the run is
    /// not over while it idles.
    Idle,
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
    /// The entered calls by what they can race with, so that a race scan
    /// reads the calls it finds only ([`entry_races`], [`match_races`]).
    index: Index,
}

/// The key of a receive's source in an [`Index`].
fn peer_key(p: Peer) -> i64 {
    match p {
        Peer::Rank(r) => r as i64,
        Peer::Any => -1,
        Peer::Null => -2,
    }
}

/// The calls a rank of threads entered since it had several threads
/// (those before are its main thread's, and entered by no choice: no race
/// with them wakes anything), by thread and by what a race needs.
/// Calls by a key, then by a pattern or a message's (source, tag).
type Keyed<K, P, V> = HashMap<K, BTreeMap<P, Listed<V>>>;

/// One list of an [`Index`]: the calls of one thread, in the order they
/// were added, and how far each other thread's calls have raced with them.
/// A race of an item `g` with a later call `h` wakes an alternative of the
/// choice that entered `g`, picked by `h`'s thread alone
/// ([`super::Engine`]'s `race`): once an item has raced with a later call
/// of thread `t`, racing it with another later call of `t` wakes nothing
/// new. Without this, a thread taking message after message would race
/// every call its siblings ever made, at every match (quadratic in the
/// run's length).
struct Listed<V> {
    items: Vec<V>,
    /// For a thread: the items before this position have raced with a
    /// later call of it.
    raced: Vec<(u32, usize)>,
}

impl<V> Default for Listed<V> {
    fn default() -> Self {
        Listed {
            items: Vec::new(),
            raced: Vec::new(),
        }
    }
}

impl<V: Copy> Listed<V> {
    fn push(&mut self, v: V) {
        self.items.push(v);
    }

    /// The positions of the calls (`at` of an item) to race with the call
    /// at `h` of thread `t`, into `out`: the items before `h` that have not
    /// raced with a call of `t`, and then the first item after `h`, if any
    /// (a race of `h` with a later call `g` wakes an alternative of `h`'s
    /// choice picked by `g`'s thread alone, and every item is one thread's).
    /// An item after `h` must come after every item before it, as the
    /// calls are added in the order they entered or matched.
    fn fresh(&mut self, t: u32, h: usize, at: impl Fn(&V) -> usize, out: &mut Vec<usize>) {
        let slot = match self.raced.iter().position(|&(u, _)| u == t) {
            Some(i) => i,
            None => {
                self.raced.push((t, 0));
                self.raced.len() - 1
            }
        };
        let mut from = self.raced[slot].1;
        while let Some(v) = self.items.get(from) {
            let g = at(v);
            if g > h {
                out.push(g);
                break;
            }
            if g < h {
                out.push(g);
            }
            from += 1;
        }
        self.raced[slot].1 = from;
    }
}

/// A receive's (source key, tag) pattern.
type Pattern = (i64, i32);

/// A pair's (receive index, send index).
type Taken = (usize, usize);

#[derive(Default)]
struct Index {
    /// Sends to a rank, by (destination, communicator, thread), then tag.
    sends: Keyed<(Rank, u32, u32), i32, usize>,
    /// Receives, by (communicator, thread), then (source key, tag).
    recvs: Keyed<(u32, u32), (i64, i32), usize>,
    /// Receives that took a message, by (communicator, thread), then the
    /// message's (sender, tag).
    took: Keyed<(u32, u32), (Rank, i32), usize>,
    /// Sends a receive took, by (receiver, communicator, thread), then the
    /// receive's (source key, tag): the receive's index and the send's.
    taken: Keyed<(Rank, u32, u32), Pattern, Taken>,
    /// The entered calls a choice entered that are neither sends to a rank
    /// nor receives, nor [`inert`].
    chosen_other: BTreeMap<usize, usize>,
    /// The threads that entered calls.
    threads: std::collections::BTreeSet<u32>,
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
            index: Index::default(),
        }
    }

    /// The thread that made the rank's entered call at `index`.
    pub(crate) fn thread_of(&self, index: usize) -> u32 {
        self.of_op.get(index).copied().unwrap_or(0)
    }

    /// Thread `t` made the entered call at `index`, which the `by`-th
    /// choice of the run entered, if one did.
    pub(crate) fn entered(&mut self, t: u32, index: usize, by: Option<usize>, kind: &Kind) {
        if self.of_op.len() <= index {
            self.of_op.resize(index + 1, 0);
        }
        self.of_op[index] = t;
        self.index.threads.insert(t);
        if let Some(k) = by {
            self.chosen.insert(index, k);
            if !observed(kind) && !inert(kind) {
                self.index.chosen_other.insert(index, k);
            }
        }
        match *kind {
            Kind::Send {
                dst: Peer::Rank(d),
                tag,
                comm,
                ..
            } => (self.index.sends.entry((d, comm, t)).or_default())
                .entry(tag)
                .or_default()
                .push(index),
            Kind::Recv { src, tag, comm, .. } => (self.index.recvs.entry((comm, t)).or_default())
                .entry((peer_key(src), tag))
                .or_default()
                .push(index),
            _ => {}
        }
    }

    /// The threads of the rank but `t` that entered calls.
    fn others(&self, t: u32) -> impl Iterator<Item = u32> + '_ {
        self.index.threads.iter().copied().filter(move |&u| u != t)
    }

    /// The choice that entered the call at `index`, if one did.
    pub(crate) fn chosen(&self, index: usize) -> Option<usize> {
        self.chosen.get(&index).copied()
    }

    /// Whether none of the rank's threads runs.
    pub(crate) fn quiet(&self) -> bool {
        self.state.values().all(|s| *s != State::Running)
    }

    /// Whether some thread idles ([`State::Idle`]).
    pub(crate) fn idling(&self) -> bool {
        self.state.values().any(|s| *s == State::Idle)
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

    /// Whether a thread of some rank idles ([`State::Idle`]).
    pub(crate) fn idling(&self) -> bool {
        self.ranks.iter().flatten().any(RankThreads::idling)
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

    /// The send `send` (a message of tag `tag` on `comm`) matched the
    /// receive `recv`, which accepts from `src` with tag `rtag`.
    pub(crate) fn matched(
        &mut self,
        send: OpId,
        tag: i32,
        recv: OpId,
        src: Peer,
        rtag: i32,
        comm: u32,
    ) {
        if let Some(rt) = self.of_mut(recv.rank) {
            let t = rt.thread_of(recv.index);
            (rt.index.took.entry((comm, t)).or_default())
                .entry((send.rank, tag))
                .or_default()
                .push(recv.index);
        }
        if let Some(rt) = self.of_mut(send.rank) {
            let t = rt.thread_of(send.index);
            (rt.index.taken.entry((recv.rank, comm, t)).or_default())
                .entry((peer_key(src), rtag))
                .or_default()
                .push((recv.index, send.index));
        }
    }
}

/// The keys of receives' (source, tag) that accept a message from `from`
/// with tag `tag`.
fn accepting(from: Rank, tag: i32) -> [(i64, i32); 4] {
    [(from as i64, tag), (from as i64, ANY), (-1, tag), (-1, ANY)]
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

/// Whether `kind` is independent ([`independent`]) of every send to a
/// rank, every receive and every call of its own sort: a completion
/// call, `MPI_Finalize`, a send to `MPI_PROC_NULL`. An entry scan for a
/// send, a receive or an inert call need not read them (a program whose
/// threads post windows of nonblocking calls, some to `MPI_PROC_NULL`,
/// would otherwise read them all at every entry).
fn inert(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Wait { .. }
            | Kind::Finalize
            | Kind::Send {
                dst: Peer::Null,
                ..
            }
    )
}

/// The calls that entered before `h` (just entered for thread `t`) for
/// other threads of its rank by a choice, and whose place `h` depends on:
/// for a send, those a receive already matched took while accepting `h`;
/// for a receive, those that took a send `h` accepts; for other calls,
/// those that are not [`independent`] of it. (A send or receive that
/// enters later and that a matched call could have taken races then; one
/// still unmatched, when the call matches, [`match_races`].)
pub(crate) fn entry_races(m: &Matching, th: &mut Threads, h: OpId, t: u32) -> Vec<OpId> {
    let Some(rt) = th.of_mut(h.rank) else {
        return Vec::new();
    };
    let kind = &m.op(h).kind;
    // A completion call or `MPI_Finalize` depends on no other call's place.
    if matches!(kind, Kind::Wait { .. } | Kind::Finalize) {
        return Vec::new();
    }
    // A send or receive depends on another's place only as observed below,
    // and a send to `MPI_PROC_NULL` on none of theirs: the calls to scan
    // are those neither observed nor inert.
    let chosen = if observed(kind) || inert(kind) {
        &rt.index.chosen_other
    } else {
        &rt.chosen
    };
    let mut out: Vec<OpId> = (chosen.keys())
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
    let others: Vec<u32> = rt.others(t).collect();
    let mut found: Vec<usize> = Vec::new();
    match *kind {
        Kind::Send {
            dst: Peer::Rank(d),
            tag,
            comm,
            ..
        } => {
            // Receives of `d` that took another thread's send of this rank
            // and accept this one: those sends.
            for &u in &others {
                let Some(taken) = rt.index.taken.get_mut(&(d, comm, u)) else {
                    continue;
                };
                for key in accepting(h.rank, tag) {
                    if let Some(list) = taken.get_mut(&key) {
                        list.fresh(t, h.index, |&(_, send)| send, &mut found);
                    }
                }
            }
        }
        Kind::Recv { src, tag, comm, .. } => {
            // Receives of other threads of this rank that took a send this
            // one accepts.
            for &u in &others {
                let Some(took) = rt.index.took.get_mut(&(comm, u)) else {
                    continue;
                };
                for (&(from, stag), list) in took.iter_mut() {
                    if accepts(src, tag, from, stag) {
                        list.fresh(t, h.index, |&i| i, &mut found);
                    }
                }
            }
        }
        _ => {}
    }
    found.sort_unstable();
    found.dedup();
    out.extend(found.into_iter().map(|index| OpId {
        rank: h.rank,
        index,
    }));
    out
}

/// The pairs of calls of two threads of one rank whose order the match of
/// `send` and `recv` may tell: the sender's other threads' sends `recv`
/// accepts, and the receiver's other threads' receives that accept
/// `send`, matched or not (in the other order, the other call may be the
/// one that matches here, and its own match go elsewhere). Of those that
/// raced before with a call of the same thread, only what can wake
/// something new ([`Listed::fresh`]).
pub(crate) fn match_races(
    m: &Matching,
    th: &mut Threads,
    send: OpId,
    recv: OpId,
) -> Vec<(OpId, OpId)> {
    let mut out = Vec::new();
    let (Kind::Send { tag, comm, .. }, Kind::Recv { src, tag: rtag, .. }) =
        (&m.op(send).kind, &m.op(recv).kind)
    else {
        return out;
    };
    let from_sender = *src == Peer::Any || *src == Peer::Rank(send.rank);
    if let Some(rt) = th.of_mut(send.rank).filter(|_| from_sender) {
        let t = rt.thread_of(send.index);
        let others: Vec<u32> = rt.others(t).collect();
        let mut found: Vec<usize> = Vec::new();
        for u in others {
            let Some(tags) = rt.index.sends.get_mut(&(recv.rank, *comm, u)) else {
                continue;
            };
            if *rtag == ANY {
                for list in tags.values_mut() {
                    list.fresh(t, send.index, |&i| i, &mut found);
                }
            } else if let Some(list) = tags.get_mut(rtag) {
                list.fresh(t, send.index, |&i| i, &mut found);
            }
        }
        found.sort_unstable();
        out.extend(found.into_iter().map(|index| {
            (
                send,
                OpId {
                    rank: send.rank,
                    index,
                },
            )
        }));
    }
    if let Some(rt) = th.of_mut(recv.rank) {
        let t = rt.thread_of(recv.index);
        let others: Vec<u32> = rt.others(t).collect();
        let mut found: Vec<usize> = Vec::new();
        for u in others {
            let Some(recvs) = rt.index.recvs.get_mut(&(*comm, u)) else {
                continue;
            };
            for key in accepting(send.rank, *tag) {
                if let Some(list) = recvs.get_mut(&key) {
                    list.fresh(t, recv.index, |&i| i, &mut found);
                }
            }
        }
        found.sort_unstable();
        out.extend(found.into_iter().map(|index| {
            (
                recv,
                OpId {
                    rank: recv.rank,
                    index,
                },
            )
        }));
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
