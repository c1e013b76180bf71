//! Compares the race rules of `fib::memory` with an independent brute-force
//! enumeration of every execution of small one-sided programs.
//!
//! The enumerator knows nothing of the rules' graph or intervals. It walks
//! every reachable state of a straight-line program under MPI's semantics:
//! each RMA call, once made, leaves effects pending (its access at the
//! target, and MPI's use of its origin, compare and result buffers) that
//! may run at any later moment; a call that completes them cannot return
//! while they are pending (`Unlock`, `Flush`, `Complete` of its origin for
//! the target effect, those and `Flush_local` for the buffers and for the
//! target effect of a call that fetches; a fence waits for every pending
//! effect on its window); accumulates of one origin to one target run in
//! the order they were called; a lock is granted when no other rank holds a
//! conflicting one on that target; a barrier or fence returns once every
//! member has called it; a start once its target has posted; a wait once
//! every origin has completed; a receive once its send was made. The buffer
//! of a blocking message call is touched at its event, like a load or
//! store; a nonblocking call's buffer is an effect left pending by the call
//! that the wait of its request cannot pass. Two memory
//! accesses race when some reachable state has both ready to run at once
//! (a load or store at its rank's program counter, a pending effect) and
//! they conflict: overlapping bytes of one memory, one writes, and not two
//! accumulates of one type with the same operation or one `MPI_NO_OP`, and
//! not a rank's message buffer and its own load, store or message buffer
//! (those are the run-time check's, FIB034).
//!
//! The rules run on the record of each complete execution (its lock grant
//! order: the calls are otherwise matched alike in every execution) and
//! their races, over all grant orders, must be exactly the brute force's.
//! Programs that can deadlock are skipped and counted. A failure names the
//! seed and prints the program.
//!
//! The barrier verdicts are held to the same enumeration: for every
//! barrier of every program, the fast method (the order of each record
//! with the barrier's match set taken out: a race, or the other order of a
//! pair of conflicting lock epochs it no longer forces, or a race of the
//! record with two epochs whose handoff it no longer forces granted the
//! other way, that no execution of the program has) must say "relevant"
//! exactly when the brute force of the program without the barrier finds a
//! race or a lock order the program with it never has.

use std::collections::{BTreeSet, HashSet};

use fib::memory::{
    handoffs, races, races_without, swapped, AccOp, BasicType, Bytes, Event, EventId, FlushTarget,
    Grants, Place, RmaKind, Run, Side, Threads, Win,
};

/// A tiny xorshift generator, so that seeds mean the same thing everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Bytes in each window segment and in each rank's buffer memory.
const SIZE: u64 = 3;
const INT: BasicType = BasicType(0);
const SHORT: BasicType = BasicType(1);

struct Gen {
    rng: Rng,
    nranks: usize,
    nwins: usize,
    ranks: Vec<Vec<Event>>,
    messages: u32,
    sets: u32,
    requests: u32,
    /// Events that complete a message or collective call made earlier
    /// (its receive, its wait), appended to their rank at a later step.
    later: Vec<(usize, Vec<Event>)>,
}

impl Gen {
    fn bytes(&mut self) -> Bytes {
        let offset = self.rng.below(SIZE as usize) as u64;
        let len = 1 + self.rng.below(2.min((SIZE - offset) as usize)) as u64;
        Bytes::new(offset, len)
    }

    fn win(&mut self) -> Win {
        Win(self.rng.below(self.nwins) as u32)
    }

    /// A load or store of the rank's own buffers, of its own window segment
    /// or (rarely, as through a shared-memory window) of another rank's.
    fn access(&mut self, rank: usize) -> Event {
        let place = match self.rng.below(10) {
            0..=3 => Place::Buffer(self.bytes()),
            4 => Place::Window {
                win: self.win(),
                rank: self.rng.below(self.nranks),
                bytes: self.bytes(),
            },
            _ => Place::Window {
                win: self.win(),
                rank,
                bytes: self.bytes(),
            },
        };
        if self.rng.chance(50) {
            Event::Load(place)
        } else {
            Event::Store(place)
        }
    }

    /// The buffer of a message or collective call of `rank`: mostly in its
    /// own window segment, sometimes in another rank's (a shared-memory
    /// window) or in its buffer memory.
    fn lent(&mut self, rank: usize, write: bool, until: Option<u32>) -> Event {
        let place = match self.rng.below(10) {
            0 | 1 => Place::Buffer(self.bytes()),
            2 => Place::Window {
                win: self.win(),
                rank: self.rng.below(self.nranks),
                bytes: self.bytes(),
            },
            _ => Place::Window {
                win: self.win(),
                rank,
                bytes: self.bytes(),
            },
        };
        Event::Buffer {
            place,
            write,
            until,
        }
    }

    /// A request for a nonblocking message call, or `None` for a blocking
    /// one.
    fn request(&mut self) -> Option<u32> {
        self.rng.chance(60).then(|| {
            self.requests += 1;
            self.requests - 1
        })
    }

    /// A send and its receive, or a nonblocking collective, with buffers
    /// in memory the rules see, blocking or not; what completes a
    /// nonblocking call comes at a later step.
    fn message(&mut self) {
        let n = self.nranks;
        if self.rng.chance(25) {
            // A nonblocking collective: every member's call sends to every
            // other member's completion.
            let first = self.messages;
            self.messages += (n * n) as u32;
            let msg = |from: usize, to: usize| first + (from * n + to) as u32;
            for r in 0..n {
                let req = self.requests;
                self.requests += 1;
                if self.rng.chance(80) {
                    let write = self.rng.chance(50);
                    let e = self.lent(r, write, Some(req));
                    self.ranks[r].push(e);
                }
                for q in (0..n).filter(|&q| q != r) {
                    self.ranks[r].push(Event::Send { msg: msg(r, q) });
                }
                let mut done: Vec<Event> = (0..n)
                    .filter(|&q| q != r)
                    .map(|q| Event::Recv { msg: msg(q, r) })
                    .collect();
                done.push(Event::WaitReq { req });
                self.later.push((r, done));
            }
            return;
        }
        let s = self.rng.below(n);
        let d = (s + 1 + self.rng.below(n - 1)) % n;
        let msg = self.messages;
        self.messages += 1;
        let req = self.request();
        if self.rng.chance(80) {
            let e = self.lent(s, false, req);
            self.ranks[s].push(e);
        }
        self.ranks[s].push(Event::Send { msg });
        if let Some(req) = req {
            self.later.push((s, vec![Event::WaitReq { req }]));
        }
        let buffer = self.rng.chance(80);
        match self.request() {
            Some(req) => {
                if buffer {
                    let e = self.lent(d, true, Some(req));
                    self.ranks[d].push(e);
                }
                self.later
                    .push((d, vec![Event::Recv { msg }, Event::WaitReq { req }]));
            }
            None => {
                self.ranks[d].push(Event::Recv { msg });
                if buffer {
                    let e = self.lent(d, true, None);
                    self.ranks[d].push(e);
                }
            }
        }
    }

    /// Appends some of the completions left for later (all with `all`).
    fn complete_later(&mut self, all: bool) {
        let mut i = 0;
        while i < self.later.len() {
            if all || self.rng.chance(40) {
                let (r, events) = self.later.remove(i);
                self.ranks[r].extend(events);
            } else {
                i += 1;
            }
        }
    }

    fn rma(&mut self, win: Win, target: usize) -> Event {
        let (kind, origin, result) = match self.rng.below(8) {
            0 | 1 => (RmaKind::Put, true, false),
            2 | 3 => (RmaKind::Get, false, true),
            4 => (RmaKind::Accumulate(AccOp::SUM, INT), true, false),
            5 => (RmaKind::Accumulate(AccOp::REPLACE, INT), true, false),
            6 => {
                let ty = if self.rng.chance(20) { SHORT } else { INT };
                (RmaKind::FetchAndOp(AccOp::SUM, ty), true, true)
            }
            _ => (RmaKind::GetAccumulate(AccOp::NO_OP, INT), false, true),
        };
        let buffer = |on: bool, g: &mut Gen| (on && g.rng.chance(60)).then(|| g.bytes());
        let origin = buffer(origin, self);
        let result = buffer(result, self);
        Event::Rma(fib::memory::Rma {
            kind,
            win,
            target,
            bytes: self.bytes(),
            origin,
            compare: None,
            result,
            request: None,
        })
    }

    /// An access epoch's body: some of [`Gen::epoch_item`], an RMA call
    /// sometimes in its request form, waited for later in the epoch.
    fn epoch(&mut self, rank: usize, win: Win, targets: &[usize], passive: bool, items: usize) {
        let mut body = Vec::new();
        for _ in 0..items {
            let mut e = self.epoch_item(rank, win, targets, passive);
            if let Event::Rma(r) = &mut e {
                if self.rng.chance(30) {
                    r.request = Some(self.requests);
                    self.requests += 1;
                }
            }
            body.push(e);
        }
        let mut i = 0;
        while i < body.len() {
            if let Event::Rma(fib::memory::Rma {
                request: Some(req), ..
            }) = body[i]
            {
                let at = i + 1 + self.rng.below(body.len() - i);
                body.insert(at, Event::WaitReq { req });
            }
            i += 1;
        }
        self.ranks[rank].extend(body);
    }

    /// What a rank does inside an access epoch to `targets` on `win`.
    fn epoch_item(&mut self, rank: usize, win: Win, targets: &[usize], passive: bool) -> Event {
        let t = targets[self.rng.below(targets.len())];
        match self.rng.below(if passive { 10 } else { 7 }) {
            0..=3 => self.rma(win, t),
            4..=6 => self.access(rank),
            _ => Event::Flush {
                win,
                target: if self.rng.chance(70) {
                    FlushTarget::One(t)
                } else {
                    FlushTarget::All
                },
                local: self.rng.chance(50),
            },
        }
    }

    fn step(&mut self) {
        let n = self.nranks;
        self.complete_later(false);
        match self.rng.below(11) {
            9 | 10 => self.message(),
            0 => {
                let r = self.rng.below(n);
                let e = self.access(r);
                self.ranks[r].push(e);
            }
            1 => {
                let set = self.sets;
                self.sets += 1;
                for r in 0..n {
                    self.ranks[r].push(Event::Collective { set });
                }
            }
            2 => {
                let win = self.win();
                for r in 0..n {
                    self.ranks[r].push(Event::Fence { win });
                }
            }
            3 => {
                let s = self.rng.below(n);
                let d = (s + 1 + self.rng.below(n - 1)) % n;
                let msg = self.messages;
                self.messages += 1;
                self.ranks[s].push(Event::Send { msg });
                self.ranks[d].push(Event::Recv { msg });
            }
            4 => {
                // An RMA call in a fence epoch (completed by the next fence
                // on its window, if any).
                let r = self.rng.below(n);
                let (win, t) = (self.win(), self.rng.below(n));
                let e = self.rma(win, t);
                self.ranks[r].push(e);
            }
            5 | 6 => {
                let (o, t, win) = (self.rng.below(n), self.rng.below(n), self.win());
                let exclusive = self.rng.chance(50);
                self.ranks[o].push(Event::Lock {
                    win,
                    target: t,
                    exclusive,
                });
                let items = 1 + self.rng.below(3);
                self.epoch(o, win, &[t], true, items);
                self.ranks[o].push(Event::Unlock { win, target: t });
            }
            7 => {
                let (o, win) = (self.rng.below(n), self.win());
                let all: Vec<usize> = (0..n).collect();
                self.ranks[o].push(Event::LockAll { win });
                let items = 1 + self.rng.below(3);
                self.epoch(o, win, &all, true, items);
                self.ranks[o].push(Event::UnlockAll { win });
            }
            _ => {
                let (t, win) = (self.rng.below(n), self.win());
                let mut origins: Vec<usize> =
                    (0..n).filter(|&o| o != t && self.rng.chance(70)).collect();
                if origins.is_empty() {
                    origins.push((t + 1) % n);
                }
                self.ranks[t].push(Event::Post {
                    win,
                    origins: origins.clone(),
                });
                if self.rng.chance(50) {
                    let e = self.access(t);
                    self.ranks[t].push(e);
                }
                self.ranks[t].push(Event::Wait { win });
                for &o in &origins {
                    self.ranks[o].push(Event::Start {
                        win,
                        targets: vec![t],
                    });
                    let items = 1 + self.rng.below(2);
                    self.epoch(o, win, &[t], false, items);
                    self.ranks[o].push(Event::Complete { win });
                }
            }
        }
    }
}

/// A program: each rank's events, the threads of the ranks that have two;
/// every rank is in every window's group.
fn program(seed: u64) -> (Vec<Vec<Event>>, usize, Vec<Option<Threads>>) {
    let mut rng = Rng::new(seed);
    let nranks = 2 + rng.below(2);
    let nwins = 1 + usize::from(rng.chance(30));
    let steps = 4 + rng.below(6);
    let mut g = Gen {
        rng,
        nranks,
        nwins,
        ranks: vec![Vec::new(); nranks],
        messages: 0,
        sets: 0,
        requests: 0,
        later: Vec::new(),
    };
    for _ in 0..steps {
        g.step();
    }
    g.complete_later(true);
    let threads = two_threads(seed, &g.ranks);
    (g.ranks, nwins, threads)
}

/// Gives one rank of some programs a second thread, as a hybrid program's
/// rank whose worker makes some of its calls: its barriers, some of its
/// blocking sends that lend no buffer, some of its loads and stores. The
/// rank's events stay in the order the generator made them (an order the
/// two threads can run in), and some events of each thread are ordered
/// after an earlier one of the other (a lock or flag they share). Only
/// calls whose effect does not depend on the order in which the rank's
/// two threads call MPI move (no window synchronisation, no RMA call, no
/// completion), so every execution has the same record.
fn two_threads(seed: u64, ranks: &[Vec<Event>]) -> Vec<Option<Threads>> {
    let mut rng = Rng::new(seed ^ 0x7423_9a1c);
    if !rng.chance(40) {
        return Vec::new();
    }
    let r = rng.below(ranks.len());
    let events = &ranks[r];
    let mut t = Threads {
        thread: vec![0; events.len()],
        after: vec![Vec::new(); events.len()],
    };
    for (i, e) in events.iter().enumerate() {
        let lends = i > 0 && matches!(events[i - 1], Event::Buffer { .. });
        let moves = match e {
            Event::Collective { .. } => true,
            Event::Load(_) | Event::Store(_) => rng.chance(50),
            Event::Send { .. } => !lends && rng.chance(50),
            _ => false,
        };
        t.thread[i] = u32::from(moves);
    }
    // Synchronisation between the threads, never at a barrier (which a
    // test deletes).
    let free = |i: usize| !matches!(events[i], Event::Collective { .. });
    for i in (1..events.len()).filter(|&i| free(i)) {
        if !rng.chance(30) {
            continue;
        }
        let other: Vec<usize> = (0..i)
            .filter(|&j| free(j) && t.thread[j] != t.thread[i])
            .collect();
        if !other.is_empty() {
            t.after[i].push(other[rng.below(other.len())]);
        }
    }
    let mut out = vec![None; ranks.len()];
    out[r] = Some(t);
    out
}

/// An access as both sides name it: its event and which of its accesses.
type Key = (EventId, Side);

/// A pending or ready access, as the enumerator sees it.
#[derive(Clone, Copy, Debug)]
struct Touch {
    key: Key,
    /// The window and rank, or `None` and the rank for buffer memory.
    mem: (Option<Win>, usize),
    bytes: Bytes,
    writes: bool,
    atomic: Option<(AccOp, BasicType)>,
}

fn conflict(a: &Touch, b: &Touch) -> bool {
    let compatible = match (a.atomic, b.atomic) {
        (Some((o1, t1)), Some((o2, t2))) => {
            t1 == t2 && (o1 == o2 || o1 == AccOp::NO_OP || o2 == AccOp::NO_OP)
        }
        _ => false,
    };
    // A rank's message buffer and its own loads, stores and message
    // buffers are the run-time check's.
    let mine = |t: &Touch| matches!(t.key.1, Side::Message | Side::Program);
    let own = a.key.0.rank == b.key.0.rank
        && (a.key.1 == Side::Message || b.key.1 == Side::Message)
        && mine(a)
        && mine(b);
    // Nor are the loads and stores of one rank's two threads MPI's.
    let threads =
        a.key.0.rank == b.key.0.rank && a.key.1 == Side::Program && b.key.1 == Side::Program;
    a.mem == b.mem
        && a.bytes.overlaps(b.bytes)
        && (a.writes || b.writes)
        && !compatible
        && !own
        && !threads
}

/// Where a load, store or message buffer is, as a touch's memory.
fn located(place: Place, rank: usize) -> ((Option<Win>, usize), Bytes) {
    match place {
        Place::Window { win, rank, bytes } => ((Some(win), rank), bytes),
        Place::Buffer(bytes) => ((None, rank), bytes),
    }
}

/// The touch a rank's event makes at the event itself: a load, a store, a
/// blocking call's buffer.
fn at_event(e: &Event, at: EventId) -> Option<Touch> {
    let (place, writes, side) = match e {
        Event::Load(p) => (*p, false, Side::Program),
        Event::Store(p) => (*p, true, Side::Program),
        Event::Buffer {
            place,
            write,
            until: None,
        } => (*place, *write, Side::Message),
        _ => return None,
    };
    let (mem, bytes) = located(place, at.rank);
    Some(Touch {
        key: (at, side),
        mem,
        bytes,
        writes,
        atomic: None,
    })
}

/// An effect an RMA call, or a nonblocking message or collective call,
/// leaves pending.
#[derive(Clone, Copy, Debug)]
struct Effect {
    call: EventId,
    /// The request of a message or collective call whose buffer this is
    /// (`None` for an RMA call's effects).
    lent: Option<u32>,
    win: Win,
    target: usize,
    /// The target access (else a buffer of the origin).
    at_target: bool,
    fetches: bool,
    touch: Touch,
}

struct Prog {
    ranks: Vec<Vec<Event>>,
    nwins: usize,
    /// The threads of the ranks that have two.
    threads: Vec<Option<Threads>>,
    /// Each lane (a rank, or a thread of a rank that has two): its rank
    /// and its events' indices; and each event's lane and place in it.
    lanes: Vec<(usize, Vec<usize>)>,
    at: Vec<Vec<(usize, usize)>>,
    effects: Vec<Effect>,
    /// Per rank and event index: the index of the unlock that ends the lock
    /// epoch a `Lock` or `LockAll` opens.
    unlock_of: Vec<Vec<Option<usize>>>,
}

impl Prog {
    fn new(ranks: Vec<Vec<Event>>, nwins: usize, threads: Vec<Option<Threads>>) -> Prog {
        let mut lanes = Vec::new();
        let mut at = Vec::new();
        for (rank, events) in ranks.iter().enumerate() {
            let thread_of = |i: usize| match threads.get(rank) {
                Some(Some(t)) => t.thread[i] as usize,
                _ => 0,
            };
            let first = lanes.len();
            let mut mine = Vec::new();
            for i in 0..events.len() {
                let th = thread_of(i);
                while first + th >= lanes.len() {
                    lanes.push((rank, Vec::new()));
                }
                mine.push((first + th, lanes[first + th].1.len()));
                lanes[first + th].1.push(i);
            }
            if lanes.len() == first {
                lanes.push((rank, Vec::new()));
            }
            at.push(mine);
        }
        let mut effects = Vec::new();
        let mut unlock_of = Vec::new();
        for (rank, events) in ranks.iter().enumerate() {
            let mut u = vec![None; events.len()];
            for (index, e) in events.iter().enumerate() {
                let call = EventId { rank, index };
                match e {
                    Event::Rma(r) => {
                        let fetches = !matches!(r.kind, RmaKind::Put | RmaKind::Accumulate(..));
                        let atomic = r.kind.atomic();
                        let writes = match atomic {
                            Some((op, _)) => op != AccOp::NO_OP,
                            None => r.kind == RmaKind::Put,
                        };
                        let mut add = |side, at_target, mem, bytes, writes, atomic| {
                            effects.push(Effect {
                                call,
                                lent: None,
                                win: r.win,
                                target: r.target,
                                at_target,
                                fetches,
                                touch: Touch {
                                    key: (call, side),
                                    mem,
                                    bytes,
                                    writes,
                                    atomic,
                                },
                            })
                        };
                        add(
                            Side::Target,
                            true,
                            (Some(r.win), r.target),
                            r.bytes,
                            writes,
                            atomic,
                        );
                        if let Some(b) = r.origin {
                            add(Side::Origin, false, (None, rank), b, false, None);
                        }
                        if let Some(b) = r.result {
                            add(Side::Result, false, (None, rank), b, true, None);
                        }
                    }
                    Event::Buffer {
                        place,
                        write,
                        until: Some(req),
                    } => {
                        let (mem, bytes) = located(*place, rank);
                        effects.push(Effect {
                            call,
                            lent: Some(*req),
                            win: Win(u32::MAX),
                            target: usize::MAX,
                            at_target: false,
                            fetches: false,
                            touch: Touch {
                                key: (call, Side::Message),
                                mem,
                                bytes,
                                writes: *write,
                                atomic: None,
                            },
                        });
                    }
                    Event::Lock { win, target, .. } => {
                        u[index] = (index + 1..events.len()).find(|&j| {
                            events[j]
                                == Event::Unlock {
                                    win: *win,
                                    target: *target,
                                }
                        });
                    }
                    Event::LockAll { win } => {
                        u[index] = (index + 1..events.len())
                            .find(|&j| events[j] == Event::UnlockAll { win: *win });
                    }
                    _ => {}
                }
            }
            unlock_of.push(u);
        }
        assert!(
            effects.len() <= 64,
            "too many effects for the state's bitset"
        );
        Prog {
            ranks,
            nwins,
            threads,
            lanes,
            at,
            effects,
            unlock_of,
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    pc: Vec<usize>,
    /// The effects that have run.
    done: u64,
    /// The locks granted so far, in order.
    grants: Vec<EventId>,
}

impl Prog {
    /// Whether the event `index` of `rank` has run in `s`.
    fn ran(&self, s: &State, rank: usize, index: usize) -> bool {
        let (lane, pos) = self.at[rank][index];
        s.pc[lane] > pos
    }

    /// The events of `rank` its thread waits for before `index` runs (the
    /// other thread's, by its synchronisation) have all run.
    fn synced(&self, s: &State, rank: usize, index: usize) -> bool {
        match self.threads.get(rank) {
            Some(Some(t)) => t.after[index].iter().all(|&a| self.ran(s, rank, a)),
            _ => true,
        }
    }

    /// The event of `lane` that runs next, if it may run now as far as its
    /// thread's synchronisation goes.
    fn head(&self, s: &State, lane: usize) -> Option<usize> {
        let (rank, events) = &self.lanes[lane];
        let index = *events.get(s.pc[lane])?;
        self.synced(s, *rank, index).then_some(index)
    }

    fn spawned(&self, s: &State, e: &Effect) -> bool {
        self.ran(s, e.call.rank, e.call.index)
    }

    fn pending(&self, s: &State, i: usize) -> bool {
        self.spawned(s, &self.effects[i]) && s.done & (1 << i) == 0
    }

    /// Pending and not waiting behind an earlier accumulate of its origin
    /// to its target.
    fn ready(&self, s: &State, i: usize) -> bool {
        let e = &self.effects[i];
        self.pending(s, i)
            && !(e.at_target
                && e.touch.atomic.is_some()
                && self.effects.iter().enumerate().any(|(j, f)| {
                    f.at_target
                        && f.touch.atomic.is_some()
                        && f.call.rank == e.call.rank
                        && f.win == e.win
                        && f.target == e.target
                        && f.call.index < e.call.index
                        && self.pending(s, j)
                }))
    }

    /// No effect of `rank`'s calls on `win` (to `target`, if given) that
    /// `which` selects is pending.
    fn settled(
        &self,
        s: &State,
        rank: usize,
        win: Win,
        target: Option<usize>,
        which: impl Fn(&Effect) -> bool,
    ) -> bool {
        self.effects.iter().enumerate().all(|(i, e)| {
            !(e.call.rank == rank
                && e.lent.is_none()
                && e.win == win
                && target.is_none_or(|t| t == e.target)
                && which(e)
                && self.pending(s, i))
        })
    }

    /// Whether `rank` holds a lock on `(win, target)`, exclusive or not.
    fn holds(&self, s: &State, rank: usize, win: Win, target: usize) -> Option<bool> {
        for (i, e) in self.ranks[rank].iter().enumerate() {
            if !self.ran(s, rank, i) {
                continue;
            }
            let held = self.unlock_of[rank][i].is_none_or(|u| !self.ran(s, rank, u));
            match *e {
                Event::Lock {
                    win: w,
                    target: t,
                    exclusive,
                } if w == win && t == target && held => return Some(exclusive),
                Event::LockAll { win: w } if w == win && held => return Some(false),
                _ => {}
            }
        }
        None
    }

    fn count(&self, s: &State, rank: usize, upto: usize, is: impl Fn(&Event) -> bool) -> usize {
        self.ranks[rank][..upto.min(self.ranks[rank].len())]
            .iter()
            .enumerate()
            .filter(|&(i, e)| self.ran(s, rank, i) && is(e))
            .count()
    }

    /// The states one step after `s`.
    fn next(&self, s: &State) -> Vec<State> {
        let mut out = Vec::new();
        let n = self.ranks.len();
        for i in 0..self.effects.len() {
            if self.ready(s, i) {
                let mut t = s.clone();
                t.done |= 1 << i;
                out.push(t);
            }
        }
        for lane in 0..self.lanes.len() {
            let r = self.lanes[lane].0;
            // (The event's index in its rank.)
            let Some(pc) = self.head(s, lane) else {
                continue;
            };
            let e = &self.ranks[r][pc];
            let advance = |grant: bool| {
                let mut t = s.clone();
                t.pc[lane] += 1;
                if grant {
                    t.grants.push(EventId { rank: r, index: pc });
                }
                t
            };
            match e {
                Event::Load(_)
                | Event::Store(_)
                | Event::Buffer { .. }
                | Event::Rma(_)
                | Event::Send { .. }
                | Event::Post { .. }
                | Event::WinSync { .. } => out.push(advance(false)),
                Event::WaitReq { req } => {
                    // Its call's buffers are MPI's until now, and a call
                    // that fetches is over at the target too.
                    // A message or collective call's buffer is MPI's until
                    // now too.
                    let ok = self.effects.iter().enumerate().all(|(i, e)| {
                        !(e.call.rank == r
                            && (matches!(self.ranks[r][e.call.index], Event::Rma(x) if x.request == Some(*req))
                                || e.lent == Some(*req))
                            && (!e.at_target || e.fetches)
                            && self.pending(s, i))
                    });
                    if ok {
                        out.push(advance(false));
                    }
                }
                Event::Recv { msg } => {
                    let sent = (0..n).any(|q| {
                        self.count(s, q, usize::MAX, |x| *x == Event::Send { msg: *msg }) > 0
                    });
                    if sent {
                        out.push(advance(false));
                    }
                }
                Event::Collective { .. } | Event::Fence { .. } => {
                    // The k-th of each rank's barriers, or fences on one
                    // window, go together once every rank is at its k-th;
                    // proposed by rank 0 only.
                    if r != 0 {
                        continue;
                    }
                    let same = |x: &Event| match (e, x) {
                        (Event::Collective { .. }, Event::Collective { .. }) => true,
                        (Event::Fence { win: a }, Event::Fence { win: b }) => a == b,
                        _ => false,
                    };
                    let k = self.count(s, 0, pc, same);
                    // Each rank's next such call, which its thread is at.
                    let at: Vec<Option<usize>> = (0..n)
                        .map(|q| {
                            let j = (0..self.ranks[q].len())
                                .find(|&j| same(&self.ranks[q][j]) && !self.ran(s, q, j))?;
                            let lane = self.at[q][j].0;
                            (self.head(s, lane) == Some(j)
                                && self.count(s, q, usize::MAX, same) == k)
                                .then_some(lane)
                        })
                        .collect();
                    let all_there = at.iter().all(Option::is_some);
                    let effects_done = match e {
                        Event::Fence { win } => (0..self.effects.len()).all(|i| {
                            !(self.effects[i].lent.is_none()
                                && self.effects[i].win == *win
                                && self.pending(s, i))
                        }),
                        _ => true,
                    };
                    if all_there && effects_done {
                        let mut t = s.clone();
                        for lane in at.into_iter().flatten() {
                            t.pc[lane] += 1;
                        }
                        out.push(t);
                    }
                }
                Event::Start { win, targets } => {
                    let ok = targets.iter().all(|&t| {
                        let posted = self.count(s, t, usize::MAX, |x| {
                            matches!(x, Event::Post { win: w, origins } if w == win && origins.contains(&r))
                        });
                        let started = self.count(s, r, pc, |x| {
                            matches!(x, Event::Start { win: w, targets } if w == win && targets.contains(&t))
                        });
                        posted > started
                    });
                    if ok {
                        out.push(advance(false));
                    }
                }
                Event::Complete { win } => {
                    if self.settled(s, r, *win, None, |_| true) {
                        out.push(advance(false));
                    }
                }
                Event::Wait { win } => {
                    // Every origin of the latest post has completed as
                    // often as this rank posted to it.
                    let post = self.ranks[r][..pc]
                        .iter()
                        .rev()
                        .find_map(|x| match x {
                            Event::Post { win: w, origins } if w == win => Some(origins),
                            _ => None,
                        })
                        .expect("a wait after its post");
                    let ok = post.iter().all(|&o| {
                        let posted = self.count(s, r, pc, |x| {
                            matches!(x, Event::Post { win: w, origins } if w == win && origins.contains(&o))
                        });
                        // Completes of o's epochs that started towards r.
                        let mut completed = 0;
                        let mut towards = false;
                        let ran = self.ranks[o]
                            .iter()
                            .enumerate()
                            .filter(|&(i, _)| self.ran(s, o, i))
                            .map(|(_, x)| x);
                        for x in ran {
                            match x {
                                Event::Start { win: w, targets } if w == win => towards = targets.contains(&r),
                                Event::Complete { win: w } if w == win && towards => completed += 1,
                                _ => {}
                            }
                        }
                        completed >= posted
                    });
                    if ok {
                        out.push(advance(false));
                    }
                }
                Event::Lock {
                    win,
                    target,
                    exclusive,
                } => {
                    let free =
                        (0..n)
                            .filter(|&q| q != r)
                            .all(|q| match self.holds(s, q, *win, *target) {
                                None => true,
                                Some(other_exclusive) => !other_exclusive && !exclusive,
                            });
                    if free {
                        out.push(advance(true));
                    }
                }
                Event::LockAll { win } => {
                    let free = (0..n).all(|t| {
                        (0..n)
                            .filter(|&q| q != r)
                            .all(|q| self.holds(s, q, *win, t) != Some(true))
                    });
                    if free {
                        out.push(advance(true));
                    }
                }
                Event::Unlock { win, target } => {
                    if self.settled(s, r, *win, Some(*target), |_| true) {
                        out.push(advance(false));
                    }
                }
                Event::UnlockAll { win } => {
                    if self.settled(s, r, *win, None, |_| true) {
                        out.push(advance(false));
                    }
                }
                Event::Flush { win, target, local } => {
                    let t = match target {
                        FlushTarget::One(t) => Some(*t),
                        FlushTarget::All => None,
                    };
                    let ok = if *local {
                        self.settled(s, r, *win, t, |e| !e.at_target || e.fetches)
                    } else {
                        self.settled(s, r, *win, t, |_| true)
                    };
                    if ok {
                        out.push(advance(false));
                    }
                }
            }
        }
        out
    }

    /// The accesses ready to run in `s`.
    fn ready_touches(&self, s: &State) -> Vec<Touch> {
        let mut out = Vec::new();
        for lane in 0..self.lanes.len() {
            let rank = self.lanes[lane].0;
            let Some(index) = self.head(s, lane) else {
                continue;
            };
            let at = EventId { rank, index };
            if let Some(t) = at_event(&self.ranks[rank][index], at) {
                out.push(t);
            }
        }
        for (i, e) in self.effects.iter().enumerate() {
            if self.ready(s, i) {
                out.push(e.touch);
            }
        }
        out
    }

    fn finished(&self, s: &State) -> bool {
        (0..self.lanes.len()).all(|l| s.pc[l] == self.lanes[l].1.len())
            && (0..self.effects.len()).all(|i| !self.pending(s, i))
    }
}

/// What the enumeration found: the racing pairs, the grant orders of the
/// complete executions, whether some execution deadlocks, and the states.
struct Brute {
    races: BTreeSet<(Key, Key)>,
    grants: BTreeSet<Vec<EventId>>,
    deadlock: bool,
    states: usize,
}

fn brute_force(p: &Prog) -> Brute {
    let start = State {
        pc: vec![0; p.lanes.len()],
        done: 0,
        grants: Vec::new(),
    };
    let mut seen = HashSet::new();
    let mut stack = vec![start.clone()];
    seen.insert(start);
    let mut out = Brute {
        races: BTreeSet::new(),
        grants: BTreeSet::new(),
        deadlock: false,
        states: 0,
    };
    while let Some(s) = stack.pop() {
        out.states += 1;
        let touches = p.ready_touches(&s);
        for (i, a) in touches.iter().enumerate() {
            for b in &touches[i + 1..] {
                if conflict(a, b) {
                    out.races.insert((a.key.min(b.key), a.key.max(b.key)));
                }
            }
        }
        let next = p.next(&s);
        if next.is_empty() {
            if p.finished(&s) {
                out.grants.insert(s.grants.clone());
            } else {
                out.deadlock = true;
            }
        }
        for t in next {
            if seen.insert(t.clone()) {
                stack.push(t);
            }
        }
    }
    out
}

/// The record of `p`'s execution with this grant order.
fn record(p: &Prog, order: &[EventId]) -> Run {
    let n = p.ranks.len();
    let mut grants = Vec::new();
    for w in 0..p.nwins {
        let win = Win(w as u32);
        for target in 0..n {
            let order: Vec<EventId> = order
                .iter()
                .copied()
                .filter(|l| match p.ranks[l.rank][l.index] {
                    Event::Lock {
                        win: x, target: t, ..
                    } => x == win && t == target,
                    Event::LockAll { win: x } => x == win,
                    _ => false,
                })
                .collect();
            grants.push(Grants { win, target, order });
        }
    }
    Run {
        threads: p.threads.clone(),
        ranks: p.ranks.clone(),
        windows: vec![(0..n).collect(); p.nwins],
        grants,
    }
}

/// The rules' races over the records of every grant order.
fn by_rules(
    p: &Prog,
    grant_orders: &BTreeSet<Vec<EventId>>,
) -> Result<BTreeSet<(Key, Key)>, String> {
    let mut out = BTreeSet::new();
    for order in grant_orders {
        let run = record(p, order);
        let found = races(&run).map_err(|e| format!("the rules refused the record: {e}"))?;
        for r in &found.races {
            out.insert((r.first.key(), r.second.key()));
        }
    }
    Ok(out)
}

fn show(p: &Prog) -> String {
    let mut s = String::new();
    for (r, events) in p.ranks.iter().enumerate() {
        s.push_str(&format!("rank {r}:\n"));
        for (i, e) in events.iter().enumerate() {
            s.push_str(&format!("  {i}: {e:?}\n"));
        }
    }
    s
}

/// How many programs the comparison takes: `FIB_MEMORY_SEEDS`, 2000 by
/// default; set it higher for a longer comparison.
fn seeds() -> u64 {
    std::env::var("FIB_MEMORY_SEEDS")
        .map_or(2000, |v| v.parse().expect("FIB_MEMORY_SEEDS: a number"))
}

#[test]
fn the_race_rules_find_exactly_the_races_of_every_execution() {
    let (mut compared, mut deadlocks, mut states, mut racing, mut pairs) = (0, 0, 0, 0, 0);
    let (mut threaded, mut reordered) = (0, 0);
    // The same for pairs of which one is a message buffer.
    let (mut racing_lent, mut pairs_lent) = (0, 0);
    let lent = |a: &Key, b: &Key| a.1 == Side::Message || b.1 == Side::Message;
    let mut failures = Vec::new();
    for seed in 0..seeds() {
        let (ranks, nwins, threads) = program(seed);
        let p = Prog::new(ranks, nwins, threads);
        let b = brute_force(&p);
        states += b.states;
        if b.deadlock {
            deadlocks += 1;
            continue;
        }
        compared += 1;
        threaded += usize::from(p.threads.iter().any(Option::is_some));
        // Every pair of accesses that conflict somewhere: what was compared.
        let all: Vec<Touch> = p
            .ranks
            .iter()
            .enumerate()
            .flat_map(|(r, events)| {
                events
                    .iter()
                    .enumerate()
                    .filter_map(move |(i, e)| at_event(e, EventId { rank: r, index: i }))
            })
            .chain(p.effects.iter().map(|e| e.touch))
            .collect();
        for (i, x) in all.iter().enumerate() {
            for y in all[i + 1..].iter().filter(|y| conflict(x, y)) {
                pairs += 1;
                pairs_lent += usize::from(lent(&x.key, &y.key));
            }
        }
        racing += b.races.len();
        racing_lent += b.races.iter().filter(|(x, y)| lent(x, y)).count();
        match by_rules(&p, &b.grants) {
            Ok(got) if got == b.races => {}
            Ok(got) => failures.push(format!(
                "seed {seed}:\n{}missed by the rules: {:?}\nextra in the rules: {:?}",
                show(&p),
                b.races.difference(&got).collect::<Vec<_>>(),
                got.difference(&b.races).collect::<Vec<_>>()
            )),
            Err(e) => failures.push(format!("seed {seed}:\n{}{e}", show(&p))),
        }
        // The threads' calls may reach fib in another order: the record
        // made in that order has the same races.
        if let Some((q, old)) = other_arrival(&p) {
            reordered += usize::from(q.ranks != p.ranks);
            let grants: BTreeSet<Vec<EventId>> = b
                .grants
                .iter()
                .map(|g| g.iter().map(|&l| new_index(&old, l)).collect())
                .collect();
            let back = |e: EventId| EventId {
                rank: e.rank,
                index: old[e.rank][e.index],
            };
            match by_rules(&q, &grants) {
                Ok(got) if renamed(&got, &back) == b.races => {}
                Ok(got) => failures.push(format!(
                    "seed {seed}, in another arrival order:\n{}races {:?}, expected {:?}",
                    show(&q),
                    renamed(&got, &back),
                    b.races
                )),
                Err(e) => failures.push(format!("seed {seed}, another order:\n{}{e}", show(&q))),
            }
        }
    }
    println!(
        "{} programs: {compared} compared ({deadlocks} can deadlock; {threaded} with a rank of \
         two threads, {reordered} of them also in another arrival order), {states} states, {pairs} conflicting pairs of which {racing} race; with a \
         message buffer, {pairs_lent} of which {racing_lent} race",
        seeds()
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} programs differ; first:\n{}",
        failures.len(),
        failures[0]
    );
    // The comparison means something: most programs are compared, and
    // both races and ordered conflicting pairs are common.
    assert!(compared * 10 >= seeds() as usize * 9, "{compared} compared");
    assert!(
        threaded * 4 >= compared,
        "{threaded} of {compared} with threads"
    );
    assert!(
        reordered * 2 >= threaded,
        "{reordered} of {threaded} reordered"
    );
    assert!(racing > 0 && pairs > racing * 2, "{racing} of {pairs}");
    assert!(
        racing_lent > 0 && pairs_lent > racing_lent * 2,
        "{racing_lent} of {pairs_lent}"
    );
}

/// `p` with the events of its two-thread rank in another order the
/// threads can make them in (the second thread's as early as its
/// synchronisation lets them), and for each new event its index in `p`;
/// `None` when no rank has two threads.
fn other_arrival(p: &Prog) -> Option<(Prog, Vec<Vec<usize>>)> {
    let r = p.threads.iter().position(Option::is_some)?;
    let t = p.threads[r].as_ref()?;
    let n = p.ranks[r].len();
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        // Each thread's next event, the second thread's first.
        let next = [1, 0].into_iter().find_map(|th| {
            let i = (0..n).find(|&i| !placed[i] && t.thread[i] == th)?;
            t.after[i].iter().all(|&a| placed[a]).then_some(i)
        })?;
        placed[next] = true;
        order.push(next);
    }
    let mut at = vec![0; n];
    for (new, &old) in order.iter().enumerate() {
        at[old] = new;
    }
    let mut ranks = p.ranks.clone();
    ranks[r] = order.iter().map(|&i| p.ranks[r][i].clone()).collect();
    let mut threads = p.threads.clone();
    threads[r] = Some(Threads {
        thread: order.iter().map(|&i| t.thread[i]).collect(),
        after: order
            .iter()
            .map(|&i| t.after[i].iter().map(|&a| at[a]).collect())
            .collect(),
    });
    let mut old: Vec<Vec<usize>> = p.ranks.iter().map(|e| (0..e.len()).collect()).collect();
    old[r] = order;
    Some((Prog::new(ranks, p.nwins, threads), old))
}

/// The index in the reordered program of the event `e` of the original.
fn new_index(old: &[Vec<usize>], e: EventId) -> EventId {
    EventId {
        rank: e.rank,
        index: old[e.rank]
            .iter()
            .position(|&i| i == e.index)
            .expect("every event"),
    }
}

/// A program's memory facts over its executions: its races, and the
/// orders in which its conflicting lock epochs were granted (first lock,
/// second lock), each event named by `name`.
type Facts = (BTreeSet<(Key, Key)>, BTreeSet<(EventId, EventId)>);

fn facts(p: &Prog, b: &Brute, name: &dyn Fn(EventId) -> EventId) -> Facts {
    let key = |k: Key| (name(k.0), k.1);
    let pairs = b.races.iter().map(|&(x, y)| {
        let (x, y) = (key(x), key(y));
        (x.min(y), x.max(y))
    });
    let mut locks = BTreeSet::new();
    for order in &b.grants {
        let run = record(p, order);
        let found = races(&run).expect("a well-formed record");
        for l in found.lock_orders(&run) {
            locks.insert((name(l.first), name(l.second)));
        }
    }
    (pairs.collect(), locks)
}

/// `p` without the collective match set `set`: its program, and the index
/// each remaining event had in `p`.
fn without_set(p: &Prog, set: u32) -> (Prog, Vec<Vec<usize>>) {
    let mut ranks = Vec::new();
    let mut index = Vec::new();
    let mut threads = Vec::new();
    for (r, events) in p.ranks.iter().enumerate() {
        let keep: Vec<usize> = (0..events.len())
            .filter(|&i| events[i] != Event::Collective { set })
            .collect();
        ranks.push(keep.iter().map(|&i| events[i].clone()).collect());
        // The threads' synchronisation never involves a barrier, so each
        // event it names is kept.
        threads.push(p.threads.get(r).cloned().flatten().map(|t| {
            Threads {
                thread: keep.iter().map(|&i| t.thread[i]).collect(),
                after: keep
                    .iter()
                    .map(|&i| {
                        t.after[i]
                            .iter()
                            .map(|a| keep.binary_search(a).expect("a kept event"))
                            .collect()
                    })
                    .collect(),
            }
        }));
        index.push(keep);
    }
    (Prog::new(ranks, p.nwins, threads), index)
}

/// The barrier verdicts' fast method, on the records of every grant order
/// of `p`: what the order of each record without `set` has that no record
/// of `p` has (a race, or the other order of a conflicting pair of lock
/// epochs it no longer forces).
fn fast_new(p: &Prog, b: &Brute, with: &Facts, set: u32) -> Result<bool, String> {
    let removed = fib::memory::Removed {
        sets: [set].into_iter().collect(),
        ..Default::default()
    };
    for order in &b.grants {
        let run = record(p, order);
        let w = races_without(&run, &removed).map_err(|e| e.to_string())?;
        for r in &w.races {
            if !with.0.contains(&(r.first.key(), r.second.key())) {
                return Ok(true);
            }
        }
        for l in w.lock_orders(&run) {
            if !l.forced && !with.1.contains(&(l.second, l.first)) {
                return Ok(true);
            }
        }
        // The handoffs the record forces and the order without the barrier
        // does not: the races of the record with them granted the other way.
        let forced: Vec<(EventId, EventId)> = handoffs(&run, &races(&run).unwrap().order)
            .into_iter()
            .filter(|h| h.forced)
            .map(|h| (h.first, h.second))
            .collect();
        for h in handoffs(&run, &w.order) {
            if h.forced || !forced.contains(&(h.first, h.second)) {
                continue;
            }
            let Some(flipped) = swapped(&run, &w.order, &h) else {
                continue;
            };
            let Ok(other) = races_without(&flipped, &removed) else {
                continue;
            };
            if other
                .races
                .iter()
                .any(|r| !with.0.contains(&(r.first.key(), r.second.key())))
            {
                return Ok(true);
            }
            // Its lock orders, as granted and, when not forced, the other
            // way.
            for l in other.lock_orders(&flipped) {
                if !with.1.contains(&(l.first, l.second))
                    || (!l.forced && !with.1.contains(&(l.second, l.first)))
                {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

#[test]
fn deleting_a_barrier_in_the_order_is_deleting_it_in_the_program() {
    // For every barrier of every generated program: the fast method's
    // answer (does some record's order without the barrier have a race or
    // a lock order the program's executions never have?) against the
    // brute force of the program without the barrier (does it have a race
    // or a lock order the program with it never has?).
    let (mut compared, mut relevant, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for seed in 0..seeds() {
        let (ranks, nwins, threads) = program(seed);
        let p = Prog::new(ranks, nwins, threads);
        let b = brute_force(&p);
        if b.deadlock {
            continue;
        }
        let sets: BTreeSet<u32> = p
            .ranks
            .iter()
            .flatten()
            .filter_map(|e| match e {
                Event::Collective { set } => Some(*set),
                _ => None,
            })
            .collect();
        let with = facts(&p, &b, &|e| e);
        for set in sets {
            let (q, index) = without_set(&p, set);
            let bq = brute_force(&q);
            if bq.deadlock {
                skipped += 1;
                continue;
            }
            let back = |e: EventId| EventId {
                rank: e.rank,
                index: index[e.rank][e.index],
            };
            let without = facts(&q, &bq, &back);
            let brute = !without.0.is_subset(&with.0) || !without.1.is_subset(&with.1);
            compared += 1;
            relevant += usize::from(brute);
            match fast_new(&p, &b, &with, set) {
                Ok(fast) if fast == brute => {}
                Ok(fast) => failures.push(format!(
                    "seed {seed}, set {set}: fast {fast}, brute force {brute}\n{}\
                     new races without it: {:?}\nnew lock orders: {:?}",
                    show(&p),
                    without.0.difference(&with.0).collect::<Vec<_>>(),
                    without.1.difference(&with.1).collect::<Vec<_>>()
                )),
                Err(e) => failures.push(format!("seed {seed}, set {set}: {e}\n{}", show(&p))),
            }
        }
    }
    println!(
        "{compared} barriers compared ({relevant} relevant through memory), {skipped} whose removal can deadlock"
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} barriers differ; first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(
        relevant > 0 && compared > relevant * 2,
        "{relevant} of {compared}"
    );
}

/// A race as a pair of keys under `name`, smaller first.
fn renamed(
    races: &BTreeSet<(Key, Key)>,
    name: &dyn Fn(EventId) -> EventId,
) -> BTreeSet<(Key, Key)> {
    races
        .iter()
        .map(|&((a, sa), (b, sb))| {
            let (x, y) = ((name(a), sa), (name(b), sb));
            (x.min(y), x.max(y))
        })
        .collect()
}
