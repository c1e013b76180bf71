//! A run's record as the input of the race rules ([`fib::memory::Run`]):
//! each rank's calls as the engine modelled them, the match sets it fired,
//! and the loads and stores the ranks made of their windows' memory
//! ([`WatchedAccesses`]), with where each event came from. FIB038
//! (`races.rs`) and the barrier verdicts (`ordering.rs`) read it.
//!
//! The translation, call by call (a rank's events stop at a call the
//! engine never answered: the rank was blocked there for good):
//!
//! - a one-sided communication call is an RMA event on its window; its
//!   request's completion is a `WaitReq` at the wait or test that completed
//!   it;
//! - a fence is a `Fence` on its window; PSCW, locks, flushes and
//!   `MPI_Win_sync` are their own events (a lock only once granted, a
//!   `MPI_Win_test` only when it took the completes it waited for); the
//!   engine's grants in firing order are each target's grant order;
//! - every other blocking collective (and `MPI_Finalize`) is a match set;
//!   a nonblocking collective orders each member's call before every other
//!   member's completion of it (one message per pair);
//! - a matched send and receive are a message, received where the
//!   receive completed (the receive itself, or the wait or test that
//!   completed it);
//! - the loads and stores a rank made of its window memory sit between the
//!   calls it made before and after them; a thread's, while the rank had
//!   several, sit just before the first call whose thread had seen them,
//!   and the rank's events are ordered by its threads' order, not by
//!   their place in the list ([`Run::threads`], from [`threads_of`]);
//! - the buffer of a send, a receive or a nonblocking collective that lies
//!   in window memory ([`WatchedAccesses::lent`]) is a `Buffer` event at
//!   its call (a send's before its message, a blocking receive's after
//!   it), MPI's until the `WaitReq` of its request at the wait or test
//!   that completed it (a nonblocking call) or during the call only.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use fib::memory::{
    AccOp, BasicType, Bytes, Event, EventId, FlushTarget, Grants, Place, Rma, RmaKind, Run,
    Threads, Win,
};
use fib_wire::FlushKind;
use poe::engine::{CollWhat, Fired, Kind, OpId, Peer, WinSync};

use crate::record::{CallThread, RunRecord, WatchedAccesses};

/// Where an event of the rules' input came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum From {
    /// The rank's call of this index.
    Call(usize),
    /// A load or store: the index in [`RunRecord::watched`].
    Touch(usize),
}

/// A run's record as the rules' input, with where each event came from.
#[derive(Clone, Debug)]
pub(crate) struct Input {
    pub run: Run,
    pub from: Vec<Vec<From>>,
    /// The `Event::Collective` set of each blocking collective match set,
    /// by its position in the fired list.
    pub set_at: HashMap<usize, u32>,
    /// The messages that stand for a nonblocking collective match set's
    /// synchronisation, by its position in the fired list.
    pub msgs_at: HashMap<usize, Vec<u32>>,
}

/// The window and the rank whose memory of it a watched tag names: the
/// interposition library watches a rank's own memory of a window under the
/// window's id, and another rank's segment of a shared window under the
/// id with that rank plus one in the high half; `None` for the rank's own.
fn watched_memory(tag: u64) -> (u32, Option<usize>) {
    (tag as u32, ((tag >> 32) as usize).checked_sub(1))
}

/// Whether the run used windows at all.
pub(crate) fn uses_windows(rec: &RunRecord) -> bool {
    !rec.watched.is_empty()
        || rec.ops.iter().any(|ops| {
            ops.iter()
                .any(|o| matches!(o.kind, Kind::Rma(_) | Kind::Win { .. }))
        })
}

/// A small number for an accumulate's operation; `MPI_NO_OP` and
/// `MPI_REPLACE` are the rules' own.
fn acc_op(name: &str, names: &mut HashMap<String, u32>) -> AccOp {
    match name {
        "MPI_NO_OP" => AccOp::NO_OP,
        "MPI_REPLACE" => AccOp::REPLACE,
        "MPI_SUM" => AccOp::SUM,
        _ => {
            let next = 16 + names.len() as u32;
            AccOp(*names.entry(name.to_string()).or_insert(next))
        }
    }
}

fn basic_type(name: &str, names: &mut HashMap<String, u32>) -> BasicType {
    let next = names.len() as u32;
    BasicType(*names.entry(name.to_string()).or_insert(next))
}

/// Builds the rules' input from `rec`.
pub(crate) fn input(rec: &RunRecord) -> Input {
    let nranks = rec.ops.len();
    // The windows: every engine id a call or a watched access names, and
    // the ranks that name it.
    let mut members: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
    for (r, ops) in rec.ops.iter().enumerate() {
        for o in ops.iter() {
            match &o.kind {
                Kind::Rma(a) => {
                    members.entry(a.win).or_default().extend([r, a.target]);
                }
                Kind::Win { win, .. }
                | Kind::Coll {
                    what: CollWhat::WinFence | CollWhat::WinFree,
                    comm: win,
                    ..
                } => {
                    members.entry(*win).or_default().insert(r);
                }
                _ => {}
            }
        }
    }
    for w in &rec.watched {
        let (id, owner) = watched_memory(w.tag);
        members
            .entry(id)
            .or_default()
            .extend([w.rank, owner.unwrap_or(w.rank)]);
    }
    let windows: Vec<u32> = members.keys().copied().collect();
    let dense: HashMap<u32, Win> = windows
        .iter()
        .enumerate()
        .map(|(i, &w)| (w, Win(i as u32)))
        .collect();
    let groups: Vec<Vec<usize>> = members
        .values()
        .map(|m| m.iter().copied().collect())
        .collect();

    // What the match sets say about each call.
    let mut set_of: HashMap<OpId, u32> = HashMap::new();
    let mut sends: HashMap<OpId, Vec<u32>> = HashMap::new();
    let mut receives: HashMap<OpId, Vec<u32>> = HashMap::new();
    let mut completed_at: HashMap<OpId, OpId> = HashMap::new();
    let mut granted: Vec<OpId> = Vec::new();
    let mut synced: BTreeSet<OpId> = BTreeSet::new();
    for f in rec.fired.iter() {
        if let Fired::Completion { op, completed } = f {
            for c in completed {
                completed_at.entry(*c).or_insert(*op);
            }
        }
    }
    let op = |id: OpId| &rec.ops[id.rank][id.index];
    // Where a nonblocking operation's completion is seen by its rank.
    let done_at = |id: OpId| -> Option<OpId> {
        match &op(id).kind {
            Kind::Recv { blocking: true, .. } => Some(id),
            _ => completed_at.get(&id).copied(),
        }
    };
    let mut msgs = 0u32;
    let mut sets = 0u32;
    let mut set_at: HashMap<usize, u32> = HashMap::new();
    let mut msgs_at: HashMap<usize, Vec<u32>> = HashMap::new();
    for (k, f) in rec.fired.iter().enumerate() {
        match f {
            Fired::SendRecv { send, recv, .. } => {
                if let Some(at) = done_at(*recv) {
                    sends.entry(*send).or_default().push(msgs);
                    receives.entry(at).or_default().push(msgs);
                    msgs += 1;
                }
            }
            Fired::Collective { ops } => {
                let nonblocking = ops
                    .iter()
                    .any(|&o| matches!(op(o).kind, Kind::Coll { req: Some(_), .. }));
                if nonblocking {
                    for &a in ops {
                        for &b in ops {
                            if a.rank == b.rank {
                                continue;
                            }
                            if let Some(at) = done_at(b) {
                                sends.entry(a).or_default().push(msgs);
                                receives.entry(at).or_default().push(msgs);
                                msgs_at.entry(k).or_default().push(msgs);
                                msgs += 1;
                            }
                        }
                    }
                } else {
                    for &o in ops {
                        set_of.insert(o, sets);
                    }
                    set_at.insert(k, sets);
                    sets += 1;
                }
            }
            Fired::Sync { to, .. } => {
                if matches!(
                    op(*to).kind,
                    Kind::Win {
                        sync: WinSync::Lock { .. } | WinSync::LockAll,
                        ..
                    }
                ) {
                    granted.push(*to);
                } else {
                    synced.insert(*to);
                }
            }
            Fired::Probe { .. } | Fired::Completion { .. } => {}
        }
    }
    let granted_set: BTreeSet<OpId> = granted.iter().copied().collect();

    // Each rank's events. The program's loads and stores by rank; the
    // buffers of calls that lie in window memory by call.
    let mut watched: Vec<Vec<usize>> = vec![Vec::new(); nranks];
    let mut lent: HashMap<OpId, Vec<usize>> = HashMap::new();
    for (i, w) in rec.watched.iter().enumerate() {
        if w.rank >= nranks {
            continue;
        }
        if w.lent {
            let index = usize::try_from(w.calls).unwrap_or(usize::MAX);
            lent.entry(OpId {
                rank: w.rank,
                index,
            })
            .or_default()
            .push(i);
        } else {
            watched[w.rank].push(i);
        }
    }
    let mut ops_names: HashMap<String, u32> = HashMap::new();
    let mut type_names: HashMap<String, u32> = HashMap::new();
    // The threads of each call of the ranks that had several.
    let mut call_threads: Vec<HashMap<u64, &CallThread>> = vec![HashMap::new(); nranks];
    for c in &rec.call_threads {
        if let Some(m) = call_threads.get_mut(c.rank) {
            m.insert(c.call, c);
        }
    }
    let threaded: Vec<bool> = (0..nranks)
        .map(|r| {
            !call_threads[r].is_empty()
                || watched[r].iter().any(|&i| rec.watched[i].point.is_some())
        })
        .collect();
    let mut threads: Vec<Option<Threads>> = vec![None; nranks];
    let mut ranks: Vec<Vec<Event>> = vec![Vec::new(); nranks];
    let mut from: Vec<Vec<From>> = vec![Vec::new(); nranks];
    let mut lock_events: HashMap<OpId, EventId> = HashMap::new();
    for r in 0..nranks {
        let events = &mut ranks[r];
        let places = &mut from[r];
        // Each touch sits before the call it was sent ahead of: for a
        // thread's while the rank has several, the first call whose
        // thread had seen it, which keeps it in its thread's order
        // ([`threads_of`] says what it comes after); a thread's touches
        // ahead of one call in the order of its clock.
        let mut placed: Vec<(u64, usize)> = watched[r]
            .iter()
            .map(|&i| (rec.watched[i].calls, i))
            .collect();
        placed.sort_by_key(|&(at, i)| (at, rec.watched[i].point.map(|p| p.1)));
        let mut touches = placed.into_iter().peekable();
        let mut touch_until = |calls: u64, events: &mut Vec<Event>, places: &mut Vec<From>| {
            while let Some(&(at, i)) = touches.peek() {
                let w = &rec.watched[i];
                if at > calls {
                    break;
                }
                touches.next();
                let (id, owner) = watched_memory(w.tag);
                let Some(&win) = dense.get(&id) else {
                    continue;
                };
                for &(lo, hi) in &w.ranges {
                    let place = Place::Window {
                        win,
                        rank: owner.unwrap_or(r),
                        bytes: Bytes::new(lo, hi.saturating_sub(lo)),
                    };
                    events.push(if w.store {
                        Event::Store(place)
                    } else {
                        Event::Load(place)
                    });
                    places.push(From::Touch(i));
                }
            }
        };
        let ops = &rec.ops[r];
        'calls: for index in 0..ops.len() {
            touch_until(index as u64, events, places);
            let id = OpId { rank: r, index };
            let o = &ops[index];
            let mut push = |e: Event, events: &mut Vec<Event>| {
                events.push(e);
                places.push(From::Call(index));
            };
            // The call's buffer where it lies in window memory: MPI's from
            // the call to the completion of its request (`until`), or
            // during the call only.
            let buffers = |until: Option<u32>| -> Vec<Event> {
                let mut out = Vec::new();
                for &i in lent.get(&id).into_iter().flatten() {
                    let w = &rec.watched[i];
                    let (wid, owner) = watched_memory(w.tag);
                    let Some(&win) = dense.get(&wid) else {
                        continue;
                    };
                    for &(lo, hi) in &w.ranges {
                        out.push(Event::Buffer {
                            place: Place::Window {
                                win,
                                rank: owner.unwrap_or(r),
                                bytes: Bytes::new(lo, hi.saturating_sub(lo)),
                            },
                            write: w.store,
                            until,
                        });
                    }
                }
                out
            };
            // A send's buffer is read from the call on, before its message
            // leaves; a nonblocking call's is MPI's until its wait.
            match o.kind {
                Kind::Send { req, .. } => buffers(req).into_iter().for_each(|e| push(e, events)),
                Kind::Recv {
                    req,
                    blocking: false,
                    ..
                }
                | Kind::Coll { req: Some(req), .. } => {
                    buffers(Some(req)).into_iter().for_each(|e| push(e, events));
                }
                _ => {}
            }
            match &o.kind {
                Kind::Rma(a) => {
                    let Some(&win) = dense.get(&a.win) else {
                        continue;
                    };
                    let kind = match a.kind {
                        fib_wire::RmaKind::Put => RmaKind::Put,
                        fib_wire::RmaKind::Get => RmaKind::Get,
                        fib_wire::RmaKind::Acc => RmaKind::Accumulate(
                            acc_op(&a.op, &mut ops_names),
                            basic_type(&a.dtype, &mut type_names),
                        ),
                        fib_wire::RmaKind::GetAcc => RmaKind::GetAccumulate(
                            acc_op(&a.op, &mut ops_names),
                            basic_type(&a.dtype, &mut type_names),
                        ),
                        fib_wire::RmaKind::FetchOp => RmaKind::FetchAndOp(
                            acc_op(&a.op, &mut ops_names),
                            basic_type(&a.dtype, &mut type_names),
                        ),
                        fib_wire::RmaKind::Cas => {
                            RmaKind::CompareAndSwap(basic_type(&a.dtype, &mut type_names))
                        }
                    };
                    push(
                        Event::Rma(Rma {
                            kind,
                            win,
                            target: a.target,
                            bytes: Bytes::new(a.lo, a.hi.saturating_sub(a.lo)),
                            origin: None,
                            compare: None,
                            result: None,
                            request: a.req,
                        }),
                        events,
                    );
                }
                Kind::Win { win, sync } => {
                    let Some(&win) = dense.get(win) else {
                        continue;
                    };
                    let e = match sync {
                        WinSync::Post { group } => Event::Post {
                            win,
                            origins: group.clone(),
                        },
                        WinSync::Start { group } => {
                            if !o.complete {
                                break 'calls;
                            }
                            Event::Start {
                                win,
                                targets: group.clone(),
                            }
                        }
                        WinSync::Complete => Event::Complete { win },
                        WinSync::Wait { test } => {
                            if *test && !synced.contains(&id) {
                                continue;
                            }
                            if !o.complete {
                                break 'calls;
                            }
                            Event::Wait { win }
                        }
                        WinSync::Lock {
                            target: Peer::Rank(t),
                            exclusive,
                        } => {
                            if !granted_set.contains(&id) {
                                break 'calls;
                            }
                            lock_events.insert(
                                id,
                                EventId {
                                    rank: r,
                                    index: events.len(),
                                },
                            );
                            Event::Lock {
                                win,
                                target: *t,
                                exclusive: *exclusive,
                            }
                        }
                        WinSync::Unlock {
                            target: Peer::Rank(t),
                        } => Event::Unlock { win, target: *t },
                        WinSync::LockAll => {
                            if !granted_set.contains(&id) {
                                break 'calls;
                            }
                            lock_events.insert(
                                id,
                                EventId {
                                    rank: r,
                                    index: events.len(),
                                },
                            );
                            Event::LockAll { win }
                        }
                        WinSync::UnlockAll => Event::UnlockAll { win },
                        WinSync::Flush { how, target } => {
                            let one = |local| match target {
                                Peer::Rank(t) => Some(Event::Flush {
                                    win,
                                    target: FlushTarget::One(*t),
                                    local,
                                }),
                                _ => None,
                            };
                            let e = match how {
                                FlushKind::Flush => one(false),
                                FlushKind::FlushLocal => one(true),
                                FlushKind::FlushAll => Some(Event::Flush {
                                    win,
                                    target: FlushTarget::All,
                                    local: false,
                                }),
                                FlushKind::FlushLocalAll => Some(Event::Flush {
                                    win,
                                    target: FlushTarget::All,
                                    local: true,
                                }),
                                FlushKind::Sync => Some(Event::WinSync { win }),
                            };
                            match e {
                                Some(e) => e,
                                None => continue,
                            }
                        }
                        WinSync::Lock { .. } | WinSync::Unlock { .. } => continue,
                    };
                    push(e, events);
                }
                Kind::Coll {
                    what: CollWhat::WinFence,
                    comm,
                    ..
                } => {
                    if !set_of.contains_key(&id) {
                        break 'calls;
                    }
                    if let Some(&win) = dense.get(comm) {
                        push(Event::Fence { win }, events);
                    }
                }
                Kind::Coll { req: None, .. } | Kind::Finalize => match set_of.get(&id) {
                    Some(&set) => push(Event::Collective { set }, events),
                    None => break 'calls,
                },
                _ => {}
            }
            for &msg in sends.get(&id).into_iter().flatten() {
                push(Event::Send { msg }, events);
            }
            for &msg in receives.get(&id).into_iter().flatten() {
                push(Event::Recv { msg }, events);
            }
            // A blocking receive writes its buffer once its message came.
            if let Kind::Recv { blocking: true, .. } = o.kind {
                if o.complete {
                    buffers(None).into_iter().for_each(|e| push(e, events));
                }
            }
            if let Kind::Wait { ops: done, .. } = &o.kind {
                for &c in done {
                    let cid = OpId { rank: r, index: c };
                    if completed_at.get(&cid) != Some(&id) {
                        continue;
                    }
                    // The requests of the rank's one-sided calls and of its
                    // other calls come from one counter: they never collide.
                    let req = match &ops[c].kind {
                        Kind::Rma(a) => a.req,
                        Kind::Send { req: Some(req), .. }
                        | Kind::Recv {
                            req,
                            blocking: false,
                            ..
                        }
                        | Kind::Coll { req: Some(req), .. }
                            if lent.contains_key(&cid) =>
                        {
                            Some(*req)
                        }
                        _ => None,
                    };
                    if let Some(req) = req {
                        push(Event::WaitReq { req }, events);
                    }
                }
            }
        }
        touch_until(u64::MAX, events, places);
        if threaded[r] {
            threads[r] = Some(threads_of(&from[r], &rec.watched, &call_threads[r]));
        }
    }

    // Each target's grant order: the grants in firing order.
    let mut grants: BTreeMap<(Win, usize), Vec<EventId>> = BTreeMap::new();
    for g in &granted {
        let Some(&at) = lock_events.get(g) else {
            continue;
        };
        let Kind::Win { win, sync } = &op(*g).kind else {
            continue;
        };
        let Some(&w) = dense.get(win) else {
            continue;
        };
        let targets: Vec<usize> = match sync {
            WinSync::Lock {
                target: Peer::Rank(t),
                ..
            } => vec![*t],
            _ => groups[w.0 as usize].clone(),
        };
        for t in targets {
            grants.entry((w, t)).or_default().push(at);
        }
    }
    Input {
        run: Run {
            threads,
            ranks,
            windows: groups,
            grants: grants
                .into_iter()
                .map(|((win, target), order)| Grants { win, target, order })
                .collect(),
        },
        from,
        set_at,
        msgs_at,
    }
}

/// The thread of a call or access no thread was said for: the calls and
/// accesses a rank made while it had one.
const ONE_THREAD: u32 = u32::MAX;

/// The threads of the events of a rank that had several, which came from
/// `places`: each call's thread as it said ([`CallThread`]; a call made
/// while the rank had one thread in a lane of its own, before every other
/// event), each load and store's as its point says. An event comes after:
///
/// - for a call's first event, the latest call of each other thread that
///   had returned before it (the thread's events up to that call), and
///   the latest load or store of each other thread whose clock entry the
///   call's thread had seen;
/// - for a load or store, the latest call of each other thread that its
///   thread had seen return ([`WatchedAccesses::after`]), as for a call;
/// - for the first event of each thread, the latest event of the rank
///   while it had one thread;
/// - for a call no thread was said for, the latest event of every thread.
fn threads_of(
    places: &[From],
    watched: &[WatchedAccesses],
    calls: &HashMap<u64, &CallThread>,
) -> Threads {
    let n = places.len();
    // The slot of each event in the rank's order: a load or store placed
    // before call `c` at 2c, the events of call `c` at 2c + 1.
    let slots: Vec<u64> = places
        .iter()
        .map(|p| match *p {
            From::Call(c) => 2 * c as u64 + 1,
            From::Touch(i) => 2 * watched[i].calls,
        })
        .collect();
    // The events before the end of call `c`'s slot.
    let upto = |c: u64| slots.partition_point(|&s| s <= 2 * c + 1);
    let thread_of = |k: usize| match places[k] {
        From::Call(c) => calls.get(&(c as u64)).map_or(ONE_THREAD, |t| t.thread),
        From::Touch(i) => watched[i].point.map_or(ONE_THREAD, |p| p.0),
    };
    let thread: Vec<u32> = (0..n).map(thread_of).collect();
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    // Per thread, its events so far, and its loads' and stores' events
    // with their clock entry (in the thread's order, so the entries never
    // decrease).
    #[derive(Default)]
    struct Lane {
        all: Vec<usize>,
        touches: Vec<(usize, u32)>,
    }
    let below =
        |list: &[usize], limit: usize| list[..list.partition_point(|&e| e < limit)].last().copied();
    let mut lanes: BTreeMap<u32, Lane> = BTreeMap::new();
    // The events up to each of `returned`'s calls (in their threads).
    let returned = |returned: &[u64], lanes: &BTreeMap<u32, Lane>| -> Vec<usize> {
        returned
            .iter()
            .filter_map(|&x| {
                let xt = calls.get(&x).map_or(ONE_THREAD, |t| t.thread);
                below(&lanes.get(&xt)?.all, upto(x))
            })
            .collect()
    };
    let first_threaded = (0..n).find(|&k| thread[k] != ONE_THREAD);
    for k in 0..n {
        let t = thread[k];
        // A call's or access's first event (one may make several).
        let mut before: Vec<usize> = Vec::new();
        if k == 0 || places[k - 1] != places[k] {
            match places[k] {
                From::Call(c) => match calls.get(&(c as u64)) {
                    Some(ct) => {
                        before.extend(returned(&ct.after, &lanes));
                        for (&u, lane) in &lanes {
                            let Some(&seen) = ct.seen.get(u as usize) else {
                                continue;
                            };
                            if u == t || u == ONE_THREAD {
                                continue;
                            }
                            let seen_upto = lane.touches.partition_point(|&(_, p)| p <= seen);
                            before.extend(seen_upto.checked_sub(1).map(|i| lane.touches[i].0));
                        }
                    }
                    None if first_threaded.is_some_and(|f| f < k) => {
                        for lane in lanes.values() {
                            before.extend(lane.all.last().copied());
                        }
                    }
                    None => {}
                },
                From::Touch(i) => {
                    if watched[i].point.is_some() {
                        before.extend(returned(&watched[i].after, &lanes));
                    }
                }
            }
            if t != ONE_THREAD && !lanes.contains_key(&t) {
                if let Some(lane) = lanes.get(&ONE_THREAD) {
                    before.extend(lane.all.last().copied());
                }
            }
        }
        before.sort_unstable();
        before.dedup();
        before.retain(|&e| e < k && thread[e] != t);
        after[k] = before;
        let lane = lanes.entry(t).or_default();
        lane.all.push(k);
        if let From::Touch(i) = places[k] {
            lane.touches.push((k, watched[i].point.map_or(0, |p| p.1)));
        }
    }
    Threads { thread, after }
}

/// What the memory rules need of a run, kept with its trace.
#[derive(Clone, Debug)]
pub struct MemoryTrace {
    pub(crate) input: Input,
    pub(crate) watched: Vec<WatchedAccesses>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watched_tag_names_the_window_and_whose_memory() {
        assert_eq!(watched_memory(7), (7, None));
        assert_eq!(watched_memory(7 | 1 << 32), (7, Some(0)));
        assert_eq!(watched_memory(7 | 4 << 32), (7, Some(3)));
    }

    /// Thread 2 loads after it has seen thread 1's call (index 1) return,
    /// not thread 0's (index 0), which reached fib first: the load comes
    /// after thread 1's call alone. A call of a lower index than the
    /// latest seen is not seen for that.
    #[test]
    fn a_load_comes_after_the_calls_its_thread_saw_return_and_no_other() {
        let call = |call: u64, thread: u32| CallThread {
            rank: 0,
            call,
            thread,
            after: Vec::new(),
            seen: Vec::new(),
        };
        let (c0, c1) = (call(0, 0), call(1, 1));
        let calls: HashMap<u64, &CallThread> = [(0, &c0), (1, &c1)].into_iter().collect();
        let load = |after: Vec<u64>| WatchedAccesses {
            rank: 0,
            calls: 2,
            tag: 1,
            site: fib_wire::Site::default(),
            store: false,
            ranges: vec![(0, 4)],
            lent: false,
            after,
            point: Some((2, 1)),
        };
        let places = [From::Call(0), From::Call(1), From::Touch(0)];
        let t = threads_of(&places, &[load(vec![1])], &calls);
        assert_eq!(t.thread, vec![0, 1, 2]);
        assert_eq!(t.after, vec![vec![], vec![], vec![1]]);
        // Having seen both, it comes after both.
        let t = threads_of(&places, &[load(vec![0, 1])], &calls);
        assert_eq!(t.after[2], vec![0, 1]);
    }

    #[test]
    fn acc_ops_keep_no_op_and_replace_and_name_the_rest_apart() {
        let mut names = HashMap::new();
        assert_eq!(acc_op("MPI_NO_OP", &mut names), AccOp::NO_OP);
        assert_eq!(acc_op("MPI_REPLACE", &mut names), AccOp::REPLACE);
        assert_eq!(acc_op("MPI_SUM", &mut names), AccOp::SUM);
        let max = acc_op("MPI_MAX", &mut names);
        assert_eq!(acc_op("MPI_MAX", &mut names), max);
        assert_ne!(acc_op("MPI_MIN", &mut names), max);
    }
}
