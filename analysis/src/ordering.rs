//! Barrier verdicts that weigh memory. Deleting a barrier group must leave
//! the program's memory as it was: no new race on window memory, and no new
//! order of two lock epochs whose accesses conflict (`ARCHITECTURE.md`,
//! the definition of relevance). This module names what a run's memory can
//! do in terms that hold across runs and across the program with and
//! without a group, and answers, for one run, what deleting a group would
//! add:
//!
//! - a race is named by its two accesses: a call's access by the call's
//!   [`Instance`] and which of its accesses it is ([`Side`]); a load or
//!   store by its rank, site, kind and how many calls other than barriers
//!   (and the waits and tests of nonblocking barriers) its rank made before
//!   it, which deleting a barrier does not change;
//! - an order of two lock epochs by the instances of their locks and the
//!   target.
//!
//! For one run, [`RunMemory::without`] builds the run's order without the
//! group's match sets ([`fib::memory::races_without`]): every race it has
//! that the run has not, and the other order of every pair of conflicting
//! lock epochs it no longer forces, is something the program without the
//! group can do. The group is relevant through memory when one of them is
//! in no run of the program with it ([`crate::barriers`] keeps the union).
//! The cost per run is one order, one sweep of the accesses and one pass
//! over the conflicting lock epochs per group not yet found relevant: the
//! number of groups is the program's, not the run's, so the pass stays
//! linear in the run (accesses are one event per range, site and kind
//! between two MPI calls, as the interposition library sends them).

use std::collections::{BTreeSet, HashSet};

use fib::memory::{self, Access, Event, EventId, Handoff, LockOrder, Node, Races, Removed, Side};
use fib_report::timeline::{Role, Timeline};
use fib_report::{MemoryWitness, Witness, WitnessAccess, WitnessLocks};
use fib_wire::Site;
use poe::engine::{CollWhat, Kind, OpId, OpRec, Ops};

use crate::timeline::Touched;

use crate::memrun::{From, Input, MemoryTrace};
use crate::record::WatchedAccesses;
use crate::sites::Resolver;
use crate::trace::{Instance, RunTrace};

/// An access, named across runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessId {
    Call {
        at: Instance,
        side: Side,
    },
    Touch {
        rank: usize,
        site: Site,
        store: bool,
        /// The calls other than barriers its rank made before it.
        after: usize,
    },
}

/// Something a run's memory did, named across runs: a race (its two
/// accesses, in order), or two conflicting lock epochs granted in this
/// order on the target rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryFact {
    Race(AccessId, AccessId),
    LockOrder(Instance, Instance, usize),
}

/// What shows a [`MemoryFact`] in a run.
#[derive(Clone, Copy, Debug)]
pub enum Shown {
    Race(Access, Access),
    LockOrder(LockOrder),
    /// A race of the run with the handoff's epochs granted the other way.
    Flip(Handoff, Access, Access),
}

/// Whether a call is a barrier or only completes nonblocking barriers (a
/// wait or test of one, or of nothing, as the request of a deleted
/// `MPI_Ibarrier` is).
fn barrier_like(ops: &Ops, op: &OpRec) -> bool {
    let barrier = |o: &OpRec| {
        matches!(
            o.kind,
            Kind::Coll {
                what: CollWhat::Coll { kind, .. },
                ..
            } if kind.is_barrier()
        )
    };
    match &op.kind {
        Kind::Wait { ops: done, .. } => done.iter().all(|&c| barrier(&ops[c])),
        _ => barrier(op),
    }
}

/// Names a run's accesses and lock epochs.
pub(crate) struct Namer<'a> {
    mem: &'a MemoryTrace,
    instances: Vec<Vec<Option<Instance>>>,
    /// Per rank, per call index: the calls other than barriers before it.
    after: Vec<Vec<usize>>,
}

impl<'a> Namer<'a> {
    pub(crate) fn new(sites: &Resolver, trace: &RunTrace, mem: &'a MemoryTrace) -> Namer<'a> {
        let after = trace
            .ops
            .iter()
            .map(|ops| {
                let mut n = 0;
                let mut v = Vec::with_capacity(ops.len() + 1);
                for op in ops.iter() {
                    v.push(n);
                    n += usize::from(!barrier_like(ops, op));
                }
                v.push(n);
                v
            })
            .collect();
        Namer {
            mem,
            instances: trace.instances(sites),
            after,
        }
    }

    fn call(&self, e: EventId) -> Option<usize> {
        match self.mem.input.from[e.rank][e.index] {
            From::Call(i) => Some(i),
            From::Touch(_) => None,
        }
    }

    fn access(&self, a: &Access) -> Option<AccessId> {
        let r = a.event.rank;
        match self.mem.input.from[r][a.event.index] {
            From::Call(i) => Some(AccessId::Call {
                at: self.instances[r][i]?,
                side: a.side,
            }),
            From::Touch(i) => {
                let w = &self.mem.watched[i];
                let after = &self.after[r];
                Some(AccessId::Touch {
                    rank: r,
                    site: w.site,
                    store: w.store,
                    after: after[(w.calls as usize).min(after.len() - 1)],
                })
            }
        }
    }

    fn race(&self, a: &Access, b: &Access) -> Option<MemoryFact> {
        let (x, y) = (self.access(a)?, self.access(b)?);
        Some(if x <= y {
            MemoryFact::Race(x, y)
        } else {
            MemoryFact::Race(y, x)
        })
    }

    fn lock(&self, l: &LockOrder, flipped: bool) -> Option<MemoryFact> {
        let (first, second) = if flipped {
            (l.second, l.first)
        } else {
            (l.first, l.second)
        };
        let at = |e: EventId| self.instances[e.rank][self.call(e)?];
        Some(MemoryFact::LockOrder(at(first)?, at(second)?, l.target))
    }
}

/// One run's memory, for the barrier verdicts.
pub(crate) struct RunMemory<'a> {
    pub namer: Namer<'a>,
    pub with: Races,
    /// What the run did: its races and the orders its conflicting lock
    /// epochs were granted in.
    pub facts: BTreeSet<MemoryFact>,
    /// The handoffs of its grant orders that its order forces.
    forced: BTreeSet<(EventId, EventId)>,
}

impl<'a> RunMemory<'a> {
    /// `None` when the run used no window, or the rules refuse its input
    /// (which the engine's record never makes them do).
    pub(crate) fn of(sites: &Resolver, trace: &'a RunTrace) -> Option<RunMemory<'a>> {
        let (namer, with, facts) = observed(sites, trace)?;
        let mem = namer.mem;
        let forced = memory::handoffs(&mem.input.run, &with.order)
            .into_iter()
            .filter(|h| h.forced)
            .map(|h| (h.first, h.second))
            .collect();
        Some(RunMemory {
            namer,
            with,
            facts,
            forced,
        })
    }

    pub(crate) fn input(&self) -> &Input {
        &self.namer.mem.input
    }

    /// What the run's memory can do once the match sets and messages of
    /// `removed` are gone and it did not do with them; and, when that is
    /// nothing, a pair of conflicting accesses of different ranks that the
    /// group lies between and that something else still orders, with the
    /// path that orders them.
    pub(crate) fn without(&self, removed: &Removed) -> Without {
        let mut out = Without::default();
        let Ok(w) = memory::races_without(&self.input().run, removed) else {
            return out;
        };
        for r in &w.races {
            if let Some(f) = self.namer.race(&r.first, &r.second) {
                if !self.facts.contains(&f) {
                    out.new.push((f, Shown::Race(r.first, r.second)));
                }
            }
        }
        for l in w
            .lock_orders(&self.input().run)
            .iter()
            .filter(|l| !l.forced)
        {
            if let Some(f) = self.namer.lock(l, true) {
                out.new.push((f, Shown::LockOrder(*l)));
            }
        }
        // A handoff the run forces and the order without the group does
        // not: the run with those two epochs granted the other way is one
        // the program without the group can make, and its races count.
        let run = &self.input().run;
        for h in memory::handoffs(run, &w.order) {
            if h.forced || !self.forced.contains(&(h.first, h.second)) {
                continue;
            }
            let Some(flipped) = memory::swapped(run, &w.order, &h) else {
                continue;
            };
            let Ok(other) = memory::races_without(&flipped, removed) else {
                continue;
            };
            for r in &other.races {
                if let Some(f) = self.namer.race(&r.first, &r.second) {
                    if !self.facts.contains(&f) {
                        out.new.push((f, Shown::Flip(h, r.first, r.second)));
                    }
                }
            }
            // Its conflicting lock epochs, as granted there and, when that
            // order does not force them, the other way.
            for l in other.lock_orders(&flipped) {
                let (a, b) = l.accesses;
                for f in [
                    self.namer.lock(&l, false),
                    (!l.forced).then(|| self.namer.lock(&l, true)).flatten(),
                ]
                .into_iter()
                .flatten()
                {
                    if !self.facts.contains(&f) {
                        out.new.push((f, Shown::Flip(h, a, b)));
                    }
                }
            }
        }
        if out.new.is_empty() {
            out.ordered = self.crossing(&w, removed);
        }
        out
    }

    /// A conflicting pair of different ranks that the removed match sets
    /// lie between (the first access ends before one of their calls, one
    /// of their calls returns before the second starts) and that `without`
    /// still orders, with the path it orders them by. Looks at a bounded
    /// number of pairs: this is advice.
    fn crossing(&self, without: &Races, removed: &Removed) -> Option<(Access, Access, Vec<Node>)> {
        const BUDGET: usize = 20_000;
        let run = &self.input().run;
        // The calls of the removed sets: (before, after) events per member.
        let mut members: Vec<(EventId, Option<EventId>)> = Vec::new();
        let mut sends: Vec<EventId> = Vec::new();
        let mut recvs: Vec<EventId> = Vec::new();
        for (rank, events) in run.ranks.iter().enumerate() {
            for (index, e) in events.iter().enumerate() {
                let at = EventId { rank, index };
                match e {
                    Event::Collective { set } if removed.sets.contains(set) => {
                        let next = (index + 1 < events.len()).then_some(EventId {
                            rank,
                            index: index + 1,
                        });
                        members.push((at, next));
                    }
                    Event::Send { msg } if removed.msgs.contains(msg) => sends.push(at),
                    Event::Recv { msg } if removed.msgs.contains(msg) => recvs.push(at),
                    _ => {}
                }
            }
        }
        let order = &self.with.order;
        let enters = |end: EventId| {
            members.iter().any(|&(m, _)| order.ordered(end, m))
                || sends.iter().any(|&s| order.ordered(end, s))
        };
        let leaves = |start: EventId| {
            members
                .iter()
                .any(|&(_, n)| n.is_some_and(|n| order.ordered(n, start)))
                || recvs.iter().any(|&r| order.ordered(r, start))
        };
        let accesses = &self.with.accesses;
        let mut budget = BUDGET;
        for a in accesses {
            let Some(end) = a.end else { continue };
            if !enters(end) {
                continue;
            }
            for b in accesses {
                if budget == 0 {
                    return None;
                }
                budget -= 1;
                if b.event.rank == a.event.rank
                    || b.loc != a.loc
                    || !a.bytes.overlaps(b.bytes)
                    || !a.mode.conflicts(b.mode)
                    || !self.with.before(a, b)
                    || !leaves(b.start)
                    || !without.before(a, b)
                {
                    continue;
                }
                let path = without.order.path(Node::Event(end), Node::Event(b.start))?;
                return Some((*a, *b, path));
            }
        }
        None
    }
}

/// What deleting a group would change in one run's memory.
#[derive(Default)]
pub(crate) struct Without {
    /// What the run could do without the group that it did not do.
    pub new: Vec<(MemoryFact, Shown)>,
    /// When nothing is new: a pair the group lies between that something
    /// else orders, and the path.
    pub ordered: Option<(Access, Access, Vec<Node>)>,
}

/// A run's races and the orders its conflicting lock epochs were granted
/// in, with what named them.
fn observed<'a>(
    sites: &Resolver,
    trace: &'a RunTrace,
) -> Option<(Namer<'a>, Races, BTreeSet<MemoryFact>)> {
    let mem = trace.memory.as_ref()?;
    let with = memory::races(&mem.input.run).ok()?;
    let namer = Namer::new(sites, trace, mem);
    let mut facts = BTreeSet::new();
    for r in &with.races {
        facts.extend(namer.race(&r.first, &r.second));
    }
    for l in &with.lock_orders(&mem.input.run) {
        facts.extend(namer.lock(l, false));
    }
    Some((namer, with, facts))
}

/// What a run's memory did, for the proof by removal's signature.
pub(crate) fn facts(sites: &Resolver, trace: &RunTrace) -> BTreeSet<MemoryFact> {
    observed(sites, trace)
        .map(|(_, _, facts)| facts)
        .unwrap_or_default()
}

/// A memory access as a witness names it: as a race finding does, with
/// the call that completes it as a sentence.
fn witness_access(
    sites: &Resolver,
    trace: &RunTrace,
    input: &Input,
    watched: &[WatchedAccesses],
    a: &Access,
) -> WitnessAccess {
    let (r, _) = crate::races::access(sites, &trace.files, &trace.ops, input, watched, a);
    WitnessAccess {
        file: r.place.file,
        line: r.place.line,
        column: r.place.column,
        span: r.place.span,
        rank: r.rank,
        what: r.what,
        target: r.target,
        offset: r.offset,
        len: r.len,
        completed_by: r.completed_by.map(|(name, p)| match (p.file, p.line) {
            (Some(f), Some(l)) => format!("{name} at {f}:{l}"),
            _ => name,
        }),
        buffer: r.buffer,
    }
}

/// The rank's call an event of the rules' input belongs to, if it is a
/// call's.
fn op_of(input: &Input, e: EventId) -> Option<OpId> {
    match input.from[e.rank][e.index] {
        From::Call(i) => Some(OpId {
            rank: e.rank,
            index: i,
        }),
        From::Touch(_) => None,
    }
}

/// The steps of an ordering path of the rules' order, one per call (or
/// load or store) the user wrote, and the calls on it.
fn steps(
    sites: &Resolver,
    trace: &RunTrace,
    mem: &MemoryTrace,
    barrier_sets: &HashSet<u32>,
    path: &[Node],
) -> (Vec<String>, Vec<OpId>) {
    let input = &mem.input;
    let mut out: Vec<String> = Vec::new();
    let mut calls: Vec<OpId> = Vec::new();
    let mut last: Option<OpId> = None;
    let mut after_set = false;
    for n in path {
        // The path leaves a match set on the rank of the event after it:
        // that rank's call of the set comes first.
        if let (Node::Event(e), true) = (*n, after_set) {
            if let Some(member) = e.index.checked_sub(1).and_then(|index| {
                op_of(
                    input,
                    EventId {
                        rank: e.rank,
                        index,
                    },
                )
            }) {
                calls.push(member);
            }
        }
        after_set = !matches!(n, Node::Event(_));
        let step = match *n {
            Node::Event(e) => match input.from[e.rank][e.index] {
                From::Call(i) => {
                    let id = OpId {
                        rank: e.rank,
                        index: i,
                    };
                    calls.push(id);
                    last = Some(id);
                    let o = &trace.ops[e.rank][i];
                    let name = sites.call_name(o.site, o.name, &trace.files);
                    let p = sites.place(o.site, o.name, &trace.files);
                    match (p.file, p.line) {
                        (Some(f), Some(l)) => format!("rank {} {name} at {f}:{l}", e.rank),
                        _ => format!("rank {} {name}", e.rank),
                    }
                }
                From::Touch(i) => {
                    let w = &mem.watched[i];
                    let what = if w.store { "store" } else { "load" };
                    let p = sites.place(w.site, "", &trace.files);
                    match (p.file, p.line) {
                        (Some(f), Some(l)) => format!("rank {} {what} at {f}:{l}", e.rank),
                        _ => format!("rank {} {what}", e.rank),
                    }
                }
            },
            Node::Collective(set) if barrier_sets.contains(&set) => {
                "all ranks meet in the barrier".to_string()
            }
            Node::Collective(_) | Node::Fence { .. } => {
                let call = last.map_or("a collective", |id| trace.ops[id.rank][id.index].name);
                format!("the ranks meet in {call}")
            }
        };
        if out.last() != Some(&step) {
            out.push(step);
        }
    }
    calls.dedup();
    (out, calls)
}

/// The witness of a group relevant through memory, shown by `shown` in
/// `trace` (whose group's match sets are `removed`), and its picture.
pub(crate) fn witness(
    sites: &Resolver,
    trace: &RunTrace,
    shown: &Shown,
    removed: &Removed,
    barrier_calls: &[OpId],
) -> Option<(Witness, Timeline)> {
    let mem = trace.memory.as_ref()?;
    let with = memory::races(&mem.input.run).ok()?;
    let input = &mem.input;
    let (a, b, kind, locks, path) = match *shown {
        Shown::Race(a, b) => {
            // The pair's order in this run, whichever way it goes.
            let (a, b) = if with.before(&a, &b) { (a, b) } else { (b, a) };
            let path = with.order.path(Node::Event(a.end?), Node::Event(b.start))?;
            (a, b, MemoryWitness::Race, None, path)
        }
        Shown::LockOrder(l) => {
            let path = with.order.path_to_call(l.first, l.second)?;
            let locks = (l.first, l.second, l.target);
            (
                l.accesses.0,
                l.accesses.1,
                MemoryWitness::LockOrder,
                Some(locks),
                path,
            )
        }
        Shown::Flip(h, a, b) => {
            let path = with.order.path_to_call(h.first, h.second)?;
            // The access of the first epoch's rank first.
            let (a, b) = if a.event.rank == h.first.rank {
                (a, b)
            } else {
                (b, a)
            };
            let locks = (h.first, h.second, h.target);
            (a, b, MemoryWitness::RaceInOtherOrder, Some(locks), path)
        }
    };
    let locks = locks.and_then(|(x, y, target)| {
        let op = |e: EventId| op_of(input, e).map(|id| trace.witness_op(sites, id));
        Some(WitnessLocks {
            first: op(x)?,
            second: op(y)?,
            target,
        })
    });
    let (path, on_path) = steps(sites, trace, mem, &removed.sets, &path);
    let first = witness_access(sites, trace, input, &mem.watched, &a);
    let second = witness_access(sites, trace, input, &mem.watched, &b);
    // The picture: both accesses, what completes them, the path's calls,
    // the barrier's calls and match sets.
    let mut calls: Vec<(OpId, Role)> = on_path.iter().map(|&id| (id, Role::OnPath)).collect();
    calls.extend(barrier_calls.iter().map(|&id| (id, Role::WitnessBarrier)));
    let mut touches = Vec::new();
    for (acc, w) in [(&a, &first), (&b, &second)] {
        match input.from[acc.event.rank][acc.event.index] {
            From::Call(i) => calls.push((
                OpId {
                    rank: acc.event.rank,
                    index: i,
                },
                Role::RaceAccess,
            )),
            From::Touch(i) => touches.push(Touched {
                rank: acc.event.rank,
                before: mem.watched[i].calls as usize,
                store: mem.watched[i].store,
                file: w.file.clone(),
                line: w.line,
            }),
        }
        if let Some(end) = acc.end.filter(|&e| e != acc.event) {
            if let Some(id) = op_of(input, end) {
                calls.push((id, Role::Completes));
            }
        }
    }
    // Later roles win: the accesses over the path, the path over plain.
    let mut roles: Vec<(OpId, Role)> = Vec::new();
    for (id, role) in calls {
        roles.retain(|(x, _)| *x != id);
        roles.push((id, role));
    }
    let sets: HashSet<usize> = trace
        .fired
        .iter()
        .enumerate()
        .filter_map(|(k, f)| match f {
            poe::engine::Fired::Collective { ops }
                if ops.iter().any(|o| barrier_calls.contains(o)) =>
            {
                Some(k)
            }
            _ => None,
        })
        .collect();
    let picture = crate::timeline::memory_witness(
        sites,
        &trace.files,
        &trace.ops,
        &trace.fired,
        &roles,
        &touches,
        &sets,
        &on_path,
    );
    Some((
        Witness::Memory {
            kind,
            first,
            second,
            locks,
            path,
            replay: trace.token.clone(),
        },
        picture,
    ))
}

/// The sentence of an irrelevant group's advice: the conflicting accesses
/// on both sides of it, and what else orders them (the first step of the
/// path that crosses ranks).
pub(crate) fn ordered_by(
    sites: &Resolver,
    trace: &RunTrace,
    a: &Access,
    b: &Access,
    path: &[Node],
) -> Option<String> {
    let mem = trace.memory.as_ref()?;
    let input = &mem.input;
    let name = |id: OpId| {
        let o = &trace.ops[id.rank][id.index];
        let call = sites.call_name(o.site, o.name, &trace.files);
        let p = sites.place(o.site, o.name, &trace.files);
        match (p.file, p.line) {
            (Some(f), Some(l)) => format!("the {call} at {f}:{l}"),
            _ => format!("rank {}'s {call}", id.rank),
        }
    };
    let mut by: Option<String> = None;
    for w in path.windows(2) {
        match (w[0], w[1]) {
            (Node::Event(x), Node::Collective(_) | Node::Fence { .. }) => {
                by = op_of(input, x).map(name);
                break;
            }
            (Node::Event(x), Node::Event(y)) if x.rank != y.rank => {
                by = match (op_of(input, x), op_of(input, y)) {
                    (Some(p), Some(q)) => Some(format!("{} and {}", name(p), name(q))),
                    _ => None,
                };
                break;
            }
            _ => {}
        }
    }
    let by = by?;
    let first = witness_access(sites, trace, input, &mem.watched, a);
    let second = witness_access(sites, trace, input, &mem.watched, b);
    let at = |w: &WitnessAccess| match (&w.file, w.line) {
        (Some(f), Some(l)) => format!("rank {}'s {} at {f}:{l}", w.rank, w.what),
        _ => format!("rank {}'s {}", w.rank, w.what),
    };
    Some(format!(
        "it lies between {} and {}, which conflict, but {by} already {} them",
        at(&first),
        at(&second),
        if by.contains(" and ") {
            "order"
        } else {
            "orders"
        }
    ))
}
