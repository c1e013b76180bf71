//! The accesses of a run, each with the interval of the order in which it
//! happens.
//!
//! A load or store of the program happens at its event. An RMA call makes
//! up to four accesses: at the target (its effect on the window) and at the
//! origin (MPI reading the origin and compare buffers, writing the result
//! buffer). Each happens somewhere after the call returns and before the
//! call that completes it returns:
//!
//! - at the target, the first of the origin's later calls that complete it
//!   remotely: `Unlock` of that target or `UnlockAll`, `Flush` of that
//!   target or of all (not local), `Complete`, `Fence`, all on the call's
//!   window; for a call that fetches (`Get`, `Get_accumulate`,
//!   `Fetch_and_op`, `Compare_and_swap` and their request forms) also its
//!   local completion, since the data it fetched is at the origin then;
//! - at the origin, the first of those or of its local completions:
//!   `Flush` with `local` (of its target or of all), or the wait of its
//!   request (which for `Rput` and `Raccumulate` is only this);
//! - accumulates of one origin to one target are applied in the order they
//!   were called (MPI's default `accumulate_ordering`), so the target effect
//!   of one is over no later than that of any later accumulate of the same
//!   origin to the same target on the same window.
//!
//! A message or collective call's buffer (`Event::Buffer`) is MPI's from
//! the call to the wait or test that completes its request (a nonblocking
//! call), or during the call only (a blocking one): one access, reading or
//! writing, over that interval.
//!
//! A call never completed is open to the end of the run.

use std::collections::{BTreeMap, HashMap};

use super::record::{
    AccOp, BasicType, Bytes, Event, EventId, FlushTarget, Place, Rank, Rma, RmaKind, Run, Win,
};

/// Which access of its event an access is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// A load or store of the program.
    Program,
    /// An RMA call's effect on the target window.
    Target,
    /// MPI reading an RMA call's origin buffer.
    Origin,
    /// MPI reading `MPI_Compare_and_swap`'s compare buffer.
    Compare,
    /// MPI writing an RMA call's result buffer (a get's origin buffer).
    Result,
    /// MPI reading or writing the buffer of a message or collective call.
    Message,
}

/// The memory an access is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// A rank's segment of a window.
    Window(Win, Rank),
    /// A rank's own memory outside windows.
    Buffer(Rank),
}

/// How an access touches its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Read,
    Write,
    /// An accumulate function's effect at the target: atomic per element
    /// of its basic type; it writes unless its operation is `MPI_NO_OP`.
    Atomic(AccOp, BasicType),
}

impl Mode {
    pub fn writes(self) -> bool {
        match self {
            Mode::Read => false,
            Mode::Write => true,
            Mode::Atomic(op, _) => op != AccOp::NO_OP,
        }
    }

    /// Whether two accesses in these modes to one byte conflict when
    /// nothing orders them: one writes, and they are not two accumulates of
    /// one basic type with the same operation or with one `MPI_NO_OP` (the
    /// default `accumulate_ops`, `same_op_no_op`).
    pub fn conflicts(self, other: Mode) -> bool {
        if !self.writes() && !other.writes() {
            return false;
        }
        match (self, other) {
            (Mode::Atomic(o1, t1), Mode::Atomic(o2, t2)) => {
                !(t1 == t2 && (o1 == o2 || o1 == AccOp::NO_OP || o2 == AccOp::NO_OP))
            }
            _ => true,
        }
    }
}

/// What the program or MPI did, for the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Load,
    Store,
    Rma(RmaKind),
    /// The buffer of a send, a receive or a nonblocking collective, which
    /// MPI writes (`write`) or only reads.
    Message {
        write: bool,
    },
}

/// One access and when it may happen: after `start` returns, before `end`
/// returns (`None`: the run never completed it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub event: EventId,
    pub side: Side,
    pub kind: AccessKind,
    pub loc: Loc,
    pub bytes: Bytes,
    pub mode: Mode,
    pub start: EventId,
    pub end: Option<EventId>,
}

impl Access {
    /// Orders accesses by event, then side: the identity of an access.
    pub fn key(&self) -> (EventId, Side) {
        (self.event, self.side)
    }
}

/// When an RMA call is over at its target and at its origin.
#[derive(Clone, Copy, Default)]
struct Ends {
    remote: Option<usize>,
    local: Option<usize>,
}

/// The ends of every RMA call of one rank, by event index.
fn ends(events: &[Event]) -> HashMap<usize, Ends> {
    let mut ends: HashMap<usize, Ends> = HashMap::new();
    let mut remote: BTreeMap<(Win, Rank), Vec<usize>> = BTreeMap::new();
    let mut local: BTreeMap<(Win, Rank), Vec<usize>> = BTreeMap::new();
    let mut requests: HashMap<u32, usize> = HashMap::new();
    let fetches = |c: usize| matches!(&events[c], Event::Rma(r) if r.kind.fetches());
    let keys =
        |m: &BTreeMap<(Win, Rank), Vec<usize>>, win: Win, t: Option<Rank>| -> Vec<(Win, Rank)> {
            match t {
                Some(t) => vec![(win, t)],
                None => m
                    .range((win, 0)..=(win, Rank::MAX))
                    .map(|(&k, _)| k)
                    .collect(),
            }
        };
    for (i, e) in events.iter().enumerate() {
        let mut close_remote = |win: Win, t: Option<Rank>, ends: &mut HashMap<usize, Ends>| {
            for k in keys(&remote, win, t) {
                for c in remote.remove(&k).unwrap_or_default() {
                    let end = ends.entry(c).or_default();
                    end.remote.get_or_insert(i);
                    end.local.get_or_insert(i);
                }
            }
            for k in keys(&local, win, t) {
                for c in local.remove(&k).unwrap_or_default() {
                    ends.entry(c).or_default().local.get_or_insert(i);
                }
            }
        };
        match *e {
            Event::Rma(r) => {
                ends.insert(i, Ends::default());
                remote.entry((r.win, r.target)).or_default().push(i);
                local.entry((r.win, r.target)).or_default().push(i);
                if let Some(q) = r.request {
                    requests.insert(q, i);
                }
            }
            Event::Unlock { win, target } => close_remote(win, Some(target), &mut ends),
            Event::Flush {
                win,
                target: FlushTarget::One(t),
                local: false,
            } => close_remote(win, Some(t), &mut ends),
            Event::UnlockAll { win }
            | Event::Complete { win }
            | Event::Fence { win }
            | Event::Flush {
                win,
                target: FlushTarget::All,
                local: false,
            } => close_remote(win, None, &mut ends),
            Event::Flush {
                win,
                target,
                local: true,
            } => {
                let t = match target {
                    FlushTarget::One(t) => Some(t),
                    FlushTarget::All => None,
                };
                for k in keys(&local, win, t) {
                    for c in local.remove(&k).unwrap_or_default() {
                        let end = ends.entry(c).or_default();
                        end.local.get_or_insert(i);
                        if fetches(c) {
                            end.remote.get_or_insert(i);
                        }
                    }
                }
            }
            Event::WaitReq { req } => {
                if let Some(c) = requests.remove(&req) {
                    let end = ends.entry(c).or_default();
                    end.local.get_or_insert(i);
                    if fetches(c) {
                        end.remote.get_or_insert(i);
                    }
                }
            }
            _ => {}
        }
    }
    // Accumulate ordering: each accumulate's target effect is over by the
    // time a later one of the same origin to the same target is.
    let mut later: HashMap<(Win, Rank), Option<usize>> = HashMap::new();
    for (i, e) in events.iter().enumerate().rev() {
        if let Event::Rma(r) = e {
            if r.kind.atomic().is_some() {
                let end = ends.get_mut(&i).expect("every call has its ends");
                if let Some(&Some(l)) = later.get(&(r.win, r.target)) {
                    end.remote = Some(end.remote.map_or(l, |e| e.min(l)));
                }
                later.insert((r.win, r.target), end.remote);
            }
        }
    }
    ends
}

fn located(at: EventId, place: Place) -> (Loc, Bytes) {
    match place {
        Place::Window { win, rank, bytes } => (Loc::Window(win, rank), bytes),
        Place::Buffer(bytes) => (Loc::Buffer(at.rank), bytes),
    }
}

fn program(at: EventId, kind: AccessKind, place: Place, mode: Mode) -> Access {
    let (loc, bytes) = located(at, place);
    Access {
        event: at,
        side: Side::Program,
        kind,
        loc,
        bytes,
        mode,
        start: at,
        end: Some(at),
    }
}

/// A message or collective call's buffer at `at`, MPI's until `end`.
fn message(at: EventId, place: Place, write: bool, end: Option<EventId>) -> Access {
    let (loc, bytes) = located(at, place);
    Access {
        event: at,
        side: Side::Message,
        kind: AccessKind::Message { write },
        loc,
        bytes,
        mode: if write { Mode::Write } else { Mode::Read },
        start: at,
        end,
    }
}

/// Where each nonblocking call's buffer of one rank is handed back: the
/// first `WaitReq` of its request after it, by the `Buffer` event's index.
fn handed_back(events: &[Event]) -> HashMap<usize, usize> {
    let mut pending: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut out = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        match *e {
            Event::Buffer {
                until: Some(req), ..
            } => pending.entry(req).or_default().push(i),
            Event::WaitReq { req } => {
                for b in pending.remove(&req).unwrap_or_default() {
                    out.insert(b, i);
                }
            }
            _ => {}
        }
    }
    out
}

fn rma(at: EventId, r: &Rma, ends: Ends, out: &mut Vec<Access>) {
    let end = |i: Option<usize>| {
        i.map(|index| EventId {
            rank: at.rank,
            index,
        })
    };
    let mode = match r.kind.atomic() {
        Some((op, ty)) => Mode::Atomic(op, ty),
        None if r.kind.writes_target() => Mode::Write,
        None => Mode::Read,
    };
    let access = |side, loc, bytes, mode, end| Access {
        event: at,
        side,
        kind: AccessKind::Rma(r.kind),
        loc,
        bytes,
        mode,
        start: at,
        end,
    };
    out.push(access(
        Side::Target,
        Loc::Window(r.win, r.target),
        r.bytes,
        mode,
        end(ends.remote),
    ));
    let buffers = [
        (Side::Origin, r.origin, Mode::Read),
        (Side::Compare, r.compare, Mode::Read),
        (Side::Result, r.result, Mode::Write),
    ];
    for (side, bytes, mode) in buffers {
        if let Some(bytes) = bytes {
            out.push(access(
                side,
                Loc::Buffer(at.rank),
                bytes,
                mode,
                end(ends.local),
            ));
        }
    }
}

/// Every access of the run, rank by rank in program order.
pub fn accesses(run: &Run) -> Vec<Access> {
    let mut out = Vec::new();
    for (rank, events) in run.ranks.iter().enumerate() {
        let ends = ends(events);
        let back = handed_back(events);
        for (index, e) in events.iter().enumerate() {
            let at = EventId { rank, index };
            match e {
                Event::Load(p) => out.push(program(at, AccessKind::Load, *p, Mode::Read)),
                Event::Store(p) => out.push(program(at, AccessKind::Store, *p, Mode::Write)),
                Event::Rma(r) => rma(at, r, ends[&index], &mut out),
                Event::Buffer {
                    place,
                    write,
                    until,
                } => {
                    let end = match until {
                        None => Some(index),
                        Some(_) => back.get(&index).copied(),
                    };
                    out.push(message(
                        at,
                        *place,
                        *write,
                        end.map(|index| EventId { rank, index }),
                    ));
                }
                _ => {}
            }
        }
    }
    out
}
