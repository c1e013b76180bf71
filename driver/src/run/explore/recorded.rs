//! Recorded runs (`--mode recorded`): the ranks never wait for the
//! scheduler. Every call goes to MPI as the program makes it, each rank's
//! reports come in bulk, and a wildcard receive says afterwards whom it got
//! its message from ([`fib_wire::Up::Took`]); the engine reads the run back
//! ([`poe::Engine::following`]), taking at each choice past the plan what
//! the run took there; an `MPI_Waitany` or `MPI_Waitsome` says which
//! requests it returned ([`fib_wire::Up::Picked`]), a test that returned
//! something what ([`fib_wire::Up::Polled`]: the engine never fails it,
//! and a `Testany` or `Testsome` chooses as a `Waitany` does; one that
//! returned nothing is not reported; so is a nonblocking probe, which
//! counts among the blocking ones when it finds something), a blocking
//! probe from
//! `MPI_ANY_SOURCE` whose message it found ([`fib_wire::Up::Found`]); a
//! receive the program cancelled, whether MPI cancelled it. The plan
//! itself is forced on the ranks: each planned choice names the world rank
//! whose message a receive or a probe takes (or that a receive is
//! cancelled), or the positions a `Waitany` or `Waitsome` returns
//! ([`fib_wire::env::FORCE`], by the call's ordinal among its rank's
//! receives, its blocking probes, or its `Waitany` and `Waitsome` calls,
//! which [`Ordinals`] learns from the runs that met it).
//!
//! A recorded run's engine catches up only once every rank has ended or
//! waits in MPI ([`fib_wire::Up::Blocked`]), so that it never chooses
//! before it knows what the run took; and a run in which every rank waits
//! so and the engine finds nothing left to match is a deadlock, found with
//! no rank answering the scheduler.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fib_wire::{Op, WaitKind, ANY};
use poe::engine::{Alternative, Kind, Outcome, Peer, Planned, WinSync};
use poe::{Engine, OpId};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// How long every rank still running must have said it waits before the
/// engine looks for a deadlock: a rank that has just been released sends
/// its next reports within this.
pub(super) const QUIET: Duration = Duration::from_millis(300);

/// A choosing call's ordinal in its rank: among its receives (blocking
/// matched probes included), among its `MPI_Waitany` and `MPI_Waitsome`
/// calls, or among its blocking probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Ordinal {
    Recv(u64),
    Pick(u64),
    /// Among its blocking probes.
    Probe(u64),
    /// Among its lock calls (`MPI_Win_lock`, `MPI_Win_lock_all`).
    Lock(u64),
}

/// Where a lock call asks for its lock: on the window (the engine's id),
/// one target (a world rank), or every rank of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LockOn {
    One(u32, u32),
    All(u32),
}

/// What the runs of one exploration learnt of the choosing calls they met,
/// by the engine's name for them: their ordinals, and where each lock call
/// asks for its lock.
#[derive(Default)]
struct Known {
    ordinals: HashMap<OpId, Ordinal>,
    locks: HashMap<OpId, LockOn>,
}

/// The ordinals of the choosing calls the runs of one exploration met, by
/// the engine's name for them: what a later run's plan is forced by.
#[derive(Default)]
pub struct Ordinals(Mutex<Known>);

impl Ordinals {
    fn learn(&self, found: &[(OpId, Ordinal)], locks: &[(OpId, LockOn)]) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.ordinals.extend(found.iter().copied());
        m.locks.extend(locks.iter().copied());
    }

    /// [`fib_wire::env::FORCE`] for `plan`: for each planned choice, the
    /// receive that takes a message and the world rank it takes it from,
    /// or the `Waitany` or `Waitsome` and the positions it returns, or
    /// for a lock granted first, each conflicting lock call that must wait
    /// for its grant (the granted rank's mark at their common target); what
    /// it cannot force otherwise (another call's choice, a test's; a replay
    /// token's, which names no call).
    pub(super) fn force(&self, plan: &[Planned]) -> Result<String, &'static str> {
        let known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let m = &known.ordinals;
        let mut out = Vec::new();
        let other = "a choice other than a receive's, a wait's or a lock's";
        for p in plan {
            let Some(point) = &p.expect else {
                return Err("the choices of a replay token");
            };
            if p.prefer.is_some() {
                return Err(other);
            }
            let Some(taken) = point.alternatives.get(p.taken) else {
                return Err(other);
            };
            let (at, alt) = match taken {
                Alternative::Defer { at, alt } => (*at, &**alt),
                a => (point.at, a),
            };
            let Some(k) = m.get(&at) else {
                return Err(other);
            };
            match (alt, k) {
                (Alternative::Send(send), Ordinal::Recv(k)) => {
                    out.push(format!("{}/{k}:{}", at.rank, send.rank))
                }
                (Alternative::Cancel, Ordinal::Recv(k)) => out.push(format!("{}/{k}:c", at.rank)),
                (Alternative::Send(send), Ordinal::Probe(k)) => {
                    out.push(format!("{}/p{k}:{}", at.rank, send.rank))
                }
                (Alternative::Index(i), Ordinal::Pick(k)) => {
                    out.push(format!("{}/w{k}:{i}", at.rank))
                }
                (Alternative::Subset(is), Ordinal::Pick(k)) => {
                    let is: Vec<String> = is.iter().map(|i| i.to_string()).collect();
                    out.push(format!("{}/w{k}:{}", at.rank, is.join("+")))
                }
                (Alternative::Grant(z), _) => {
                    let won = |x: &OpId| match (m.get(x), known.locks.get(x)) {
                        (Some(Ordinal::Lock(k)), Some(&on)) => Some((*k, on)),
                        _ => None,
                    };
                    let (kz, on_z) = won(z).ok_or(other)?;
                    for a in &point.alternatives {
                        let w = match a {
                            Alternative::Grant(w) => *w,
                            Alternative::Defer { alt, .. } => match **alt {
                                Alternative::Grant(w) => w,
                                _ => continue,
                            },
                            _ => continue,
                        };
                        if w == *z {
                            continue;
                        }
                        let (kw, on_w) = won(&w).ok_or(other)?;
                        // Locks of different windows never conflict.
                        let common = match (on_z, on_w) {
                            (LockOn::One(v, t), LockOn::One(w, u)) => {
                                (v == w && t == u).then_some(t)
                            }
                            (LockOn::One(v, t), LockOn::All(w))
                            | (LockOn::All(w), LockOn::One(v, t)) => (v == w).then_some(t),
                            (LockOn::All(_), LockOn::All(_)) => None,
                        };
                        if let Some(t) = common {
                            out.push(format!("{}/l{kw}:{}@{t}#{}", w.rank, z.rank, kz + 1));
                        }
                    }
                }
                _ => return Err(other),
            }
        }
        Ok(out.join(","))
    }
}

/// A rank's receives by request id, with their ordinals. The library
/// numbers a rank's requests in the order it makes them, so the receives
/// come in increasing order of id and are kept in a list searched by
/// halves; one that does not (a threaded rank's, an id that wrapped
/// around) goes to a map.
#[derive(Default)]
struct ByReq {
    rising: Vec<(u32, u64)>,
    other: HashMap<u32, u64>,
}

impl ByReq {
    fn insert(&mut self, req: u32, k: u64) {
        // (A later entry of the same id wins, as in a map.)
        if self.rising.last().is_none_or(|&(last, _)| last < req) {
            self.rising.push((req, k));
        } else if let Ok(i) = self.rising.binary_search_by_key(&req, |&(q, _)| q) {
            self.rising[i].1 = k;
        } else {
            self.other.insert(req, k);
        }
    }

    fn get(&self, req: u32) -> Option<u64> {
        match self.rising.binary_search_by_key(&req, |&(q, _)| q) {
            Ok(i) => Some(self.rising[i].1),
            Err(_) => self.other.get(&req).copied(),
        }
    }
}

/// A choosing call of a recorded run: its name in the engine once fed,
/// and what it took once the rank said so.
#[derive(Default)]
struct Slot {
    op: Option<OpId>,
    took: Option<Outcome>,
}

impl Slot {
    /// Names the call, or tells what it took: once both are known, the
    /// engine follows it.
    fn fill(&mut self, op: Option<OpId>, took: Option<Outcome>, engine: &mut Engine) {
        self.op = self.op.or(op);
        if took.is_some() {
            self.took = took;
        }
        if let (Some(id), Some(t)) = (self.op, &mut self.took) {
            // (A lock call is followed only once the engine has it.)
            if let Outcome::Granted { win, exclusive, .. } = t {
                if let Kind::Win { win: w, sync } = &engine.op(id).kind {
                    *win = *w;
                    *exclusive = matches!(
                        sync,
                        WinSync::Lock {
                            exclusive: true,
                            ..
                        }
                    );
                }
            }
            engine.follow(id, t.clone());
        }
    }
}

/// One recorded run's state in the scheduler.
pub(super) struct Recorded<'a> {
    ordinals: &'a Ordinals,
    /// Per rank, its receives reported and fed so far: a receive's ordinal.
    reported: Vec<u64>,
    fed: Vec<u64>,
    /// Per rank, its `Waitany` and `Waitsome` calls reported and fed, and
    /// whether the last one reported is a `Waitsome`.
    picks_reported: Vec<u64>,
    picks_fed: Vec<u64>,
    last_some: Vec<bool>,
    /// Per rank, what the test it reports next returned
    /// ([`fib_wire::Up::Polled`]), and how many of its tests are reported
    /// and not yet fed (each returned something: one that returns nothing
    /// is not reported).
    polled: Vec<Option<Vec<u32>>>,
    poll_answers: Vec<u64>,
    /// Per rank, whether it said it makes only tests that return nothing
    /// ([`fib_wire::Up::Spinning`]) and has reported no call since.
    spinning: Vec<bool>,
    /// Per rank, its blocking probes reported and fed.
    probes_reported: Vec<u64>,
    probes_fed: Vec<u64>,
    /// Per rank, the ordinal of the latest receive reported under each
    /// request id (a completion, and so its `Took`, comes before the id is
    /// used again).
    by_req: Vec<ByReq>,
    /// Per rank, the engine's index of each receive fed, by ordinal.
    recv_index: Vec<Vec<usize>>,
    /// The receives (rank, ordinal) the program asked to cancel: each is a
    /// choice, between its message and the cancel.
    cancels: HashSet<(usize, u64)>,
    slots: HashMap<(usize, Ordinal), Slot>,
    /// The ordinals of the choosing calls fed, for the plans of later runs.
    found: Vec<(OpId, Ordinal)>,
    /// Per rank, its lock calls reported and fed; the lock call fed last,
    /// until the engine has it ([`Recorded::issued`]); and where each lock
    /// call fed asks for its lock.
    locks_reported: Vec<u64>,
    locks_fed: Vec<u64>,
    lock_fed: Option<OpId>,
    lock_on: Vec<(OpId, LockOn)>,
    /// Per rank, whether it last said it waits in MPI.
    pub blocked: Vec<bool>,
    /// Since when every rank still running has waited.
    quiet_since: Option<Instant>,
    /// A rank that made a call a recorded run cannot follow.
    pub unrecorded: Option<usize>,
    /// Per rank, the call it reported last, and where.
    pub last: Vec<(&'static str, fib_wire::Site)>,
    /// Per rank, the names it gave the communicators its constructors
    /// made ([`fib_wire::Up::Named`]) and the ids the engine gave them,
    /// not yet paired; and the pairs.
    names: Vec<VecDeque<u32>>,
    ids: Vec<VecDeque<i32>>,
    renames: Vec<HashMap<u32, u32>>,
}

impl<'a> Recorded<'a> {
    pub fn new(nprocs: usize, ordinals: &'a Ordinals) -> Recorded<'a> {
        Recorded {
            ordinals,
            reported: vec![0; nprocs],
            fed: vec![0; nprocs],
            picks_reported: vec![0; nprocs],
            picks_fed: vec![0; nprocs],
            last_some: vec![false; nprocs],
            polled: vec![None; nprocs],
            poll_answers: vec![0; nprocs],
            spinning: vec![false; nprocs],
            probes_reported: vec![0; nprocs],
            probes_fed: vec![0; nprocs],
            by_req: (0..nprocs).map(|_| ByReq::default()).collect(),
            recv_index: vec![Vec::new(); nprocs],
            cancels: Default::default(),
            slots: HashMap::default(),
            found: Vec::new(),
            locks_reported: vec![0; nprocs],
            locks_fed: vec![0; nprocs],
            lock_fed: None,
            lock_on: Vec::new(),
            blocked: vec![false; nprocs],
            quiet_since: None,
            unrecorded: None,
            last: vec![("a call", fib_wire::Site::default()); nprocs],
            names: vec![VecDeque::new(); nprocs],
            ids: vec![VecDeque::new(); nprocs],
            renames: vec![HashMap::default(); nprocs],
        }
    }

    /// Rank `r`'s last constructor made the communicator it calls `comm`
    /// (or none, [`fib_wire::NO_COMM`]).
    pub fn named(&mut self, r: usize, comm: u32) {
        self.names[r].push_back(comm);
        self.pair(r);
    }

    /// The engine gave rank `r`'s oldest constructor not yet answered the
    /// communicator `id` (`-1`: none).
    pub fn given(&mut self, r: usize, id: i32) {
        self.ids[r].push_back(id);
        self.pair(r);
    }

    fn pair(&mut self, r: usize) {
        while let (Some(&name), Some(&id)) = (self.names[r].front(), self.ids[r].front()) {
            self.names[r].pop_front();
            self.ids[r].pop_front();
            if name != fib_wire::NO_COMM && id >= 0 {
                self.renames[r].insert(name, id as u32);
            }
        }
    }

    /// Renames the communicators and windows rank `r`'s call `op` names
    /// with the engine's ids. A call goes to the engine only once the constructors
    /// before it are answered, and after their names came.
    pub fn rename(&self, r: usize, op: &mut Op) {
        // Most ranks make no communicator: their calls are left as they
        // are, without listing the ones they name.
        if self.renames[r].is_empty() {
            return;
        }
        for c in op.ids_mut() {
            if *c >= fib_wire::RECORDED_COMMS {
                if let Some(&id) = self.renames[r].get(c) {
                    *c = id;
                }
            }
        }
    }

    /// Renames the window a tag of rank `r`'s watched memory names (its
    /// low half, [`fib_wire::Up::Watched`]) with the engine's id.
    pub fn rename_tag(&self, r: usize, tag: &mut u64) {
        let win = *tag as u32;
        if win >= fib_wire::RECORDED_COMMS {
            if let Some(&id) = self.renames[r].get(&win) {
                *tag = (*tag & !u64::from(u32::MAX)) | u64::from(id);
            }
        }
    }

    /// Rank `r`'s next test returned the positions `indices`.
    pub fn polled(&mut self, r: usize, indices: Vec<u32>) {
        self.polled[r] = Some(indices);
    }

    /// Rank `r` makes only tests that return nothing.
    pub fn spinning(&mut self, r: usize) {
        self.spinning[r] = true;
        self.last[r].0 = "tests that keep returning nothing while every rank waits";
    }

    /// Whether a rank that waits keeps failing a test: with every rank
    /// waiting and nothing for the engine to do, the program may be
    /// livelocked, which only the scheduler's own answers find.
    pub fn spins(&self) -> Option<usize> {
        (0..self.spinning.len()).find(|&r| self.spinning[r] && self.blocked[r])
    }

    /// Rank `r` reported `op`, made at `site`.
    pub fn reported(&mut self, r: usize, site: fib_wire::Site, op: &Op, engine: &mut Engine) {
        self.last[r] = (poe::engine::call_name(op), site);
        self.spinning[r] = false;
        // A poll is reported only when it returned something, and says
        // what first.
        let mut indices = None;
        if polls(op) {
            let Some(i) = self.polled[r].take() else {
                return;
            };
            self.poll_answers[r] += 1;
            indices = Some(i);
        }
        match op {
            // A matched probe (a nonblocking one that found a message) is
            // a receive: it takes its message.
            Op::Recv { req, .. } | Op::Mprobe { req, .. } => {
                let k = self.reported[r];
                self.reported[r] += 1;
                self.by_req[r].insert(*req, k);
            }
            Op::Cancel { req } => {
                let Some(k) = self.by_req[r].get(*req) else {
                    return;
                };
                if self.cancels.insert((r, k)) {
                    // Already fed: the receive chooses from now on.
                    if let Some(&index) = self.recv_index[r].get(k as usize) {
                        let id = OpId { rank: r, index };
                        self.found.push((id, Ordinal::Recv(k)));
                        self.slots.entry((r, Ordinal::Recv(k))).or_default().fill(
                            Some(id),
                            None,
                            engine,
                        );
                    }
                }
            }
            Op::Wait { kind, .. } | Op::Test { kind, .. } if picks(op) => {
                self.picks_reported[r] += 1;
                self.last_some[r] = *kind == WaitKind::Some;
                // A test's positions came before it; a wait's come after
                // it ([`fib_wire::Up::Picked`]).
                if let Some(indices) = indices {
                    self.picked(r, indices, engine);
                }
            }
            // A blocking probe, or a nonblocking one that found a message.
            Op::Probe { .. } => self.probes_reported[r] += 1,
            Op::WinLock { .. } | Op::WinLockAll { .. } => self.locks_reported[r] += 1,
            _ => {}
        }
    }

    /// Rank `r`'s call `op` goes to the engine now. Returns whether it is
    /// a test that returned something in the run ([`Engine::polled`], once
    /// the engine has the call).
    pub fn fed(&mut self, r: usize, op: &Op, engine: &mut Engine) -> bool {
        let id = OpId {
            rank: r,
            index: engine.ops(r).len(),
        };
        let polled = polls(op);
        if polled {
            if self.poll_answers[r] == 0 {
                return false;
            }
            self.poll_answers[r] -= 1;
        }
        // The call's ordinal, and whether it chooses (a specific source
        // takes no choice, but counts).
        let (k, chooses) = match op {
            Op::Recv { src, .. } | Op::Mprobe { src, .. } => {
                self.fed[r] += 1;
                let k = self.fed[r] - 1;
                self.recv_index[r].push(id.index);
                (
                    Ordinal::Recv(k),
                    *src == ANY || self.cancels.contains(&(r, k)),
                )
            }
            Op::Probe { src, .. } => {
                self.probes_fed[r] += 1;
                (Ordinal::Probe(self.probes_fed[r] - 1), *src == ANY)
            }
            op if picks(op) => {
                self.picks_fed[r] += 1;
                (Ordinal::Pick(self.picks_fed[r] - 1), true)
            }
            // Every lock request is a choice, the order of its grant,
            // followed once the engine has the call ([`Recorded::issued`]).
            Op::WinLock { .. } | Op::WinLockAll { .. } => {
                self.locks_fed[r] += 1;
                self.lock_fed = Some(id);
                (Ordinal::Lock(self.locks_fed[r] - 1), false)
            }
            _ => return polled,
        };
        // Only a choosing call can be a plan's (a lock call always is).
        if chooses || matches!(k, Ordinal::Lock(_)) {
            self.found.push((id, k));
        }
        if chooses {
            self.slots
                .entry((r, k))
                .or_default()
                .fill(Some(id), None, engine);
        }
        polled
    }

    /// Rank `r`'s wildcard receive, or receive it asked to cancel, of
    /// request `req` took world rank `src`'s message (or was cancelled,
    /// [`fib_wire::CANCELLED`]).
    pub fn took(&mut self, r: usize, req: u32, src: u32, engine: &mut Engine) {
        let Some(k) = self.by_req[r].get(req) else {
            return;
        };
        let took = match src {
            fib_wire::CANCELLED => Outcome::Cancelled,
            src => Outcome::From(src as usize),
        };
        self.slots
            .entry((r, Ordinal::Recv(k)))
            .or_default()
            .fill(None, Some(took), engine);
    }

    /// The engine has the call fed last: a lock call's window and
    /// targets (world ranks) are known now, and it is followed.
    pub fn issued(&mut self, engine: &mut Engine) {
        let Some(id) = self.lock_fed.take() else {
            return;
        };
        let k = self.locks_fed[id.rank] - 1;
        self.slots
            .entry((id.rank, Ordinal::Lock(k)))
            .or_default()
            .fill(Some(id), None, engine);
        let on = match &engine.op(id).kind {
            Kind::Win {
                win,
                sync:
                    WinSync::Lock {
                        target: Peer::Rank(t),
                        ..
                    },
            } => LockOn::One(*win, *t as u32),
            Kind::Win {
                win,
                sync: WinSync::LockAll,
            } => LockOn::All(*win),
            _ => return,
        };
        self.lock_on.push((id, on));
    }

    /// Rank `r`'s last lock call reported was granted as `grants` say
    /// (per target, a world rank, the grant's number there).
    pub fn granted(&mut self, r: usize, grants: Vec<(u32, u64)>, engine: &mut Engine) {
        let Some(k) = self.locks_reported[r].checked_sub(1) else {
            return;
        };
        // The window and the kind are the engine's call's, once it is fed
        // ([`Slot::fill`]).
        let took = Outcome::Granted {
            win: 0,
            exclusive: false,
            grants: grants.into_iter().map(|(t, n)| (t as usize, n)).collect(),
        };
        self.slots
            .entry((r, Ordinal::Lock(k)))
            .or_default()
            .fill(None, Some(took), engine);
    }

    /// Rank `r`'s last blocking probe reported, from `MPI_ANY_SOURCE`,
    /// found world rank `src`'s message.
    pub fn found(&mut self, r: usize, src: u32, engine: &mut Engine) {
        let Some(k) = self.probes_reported[r].checked_sub(1) else {
            return;
        };
        self.slots.entry((r, Ordinal::Probe(k))).or_default().fill(
            None,
            Some(Outcome::From(src as usize)),
            engine,
        );
    }

    /// Rank `r`'s last `Waitany` or `Waitsome` reported returned the
    /// requests at positions `indices`.
    pub fn picked(&mut self, r: usize, indices: Vec<u32>, engine: &mut Engine) {
        let Some(k) = self.picks_reported[r].checked_sub(1) else {
            return;
        };
        let took = match (self.last_some[r], indices.as_slice()) {
            (false, [i]) => Outcome::Index(*i),
            _ => Outcome::Subset(indices),
        };
        self.slots
            .entry((r, Ordinal::Pick(k)))
            .or_default()
            .fill(None, Some(took), engine);
    }

    /// Whether every rank still running has waited in MPI for [`QUIET`]
    /// (`gone` says which ranks have ended), none of them for long enough
    /// yet otherwise.
    pub fn quiet(&mut self, gone: impl Fn(usize) -> bool) -> bool {
        let n = self.blocked.len();
        let all = (0..n).all(|r| gone(r) || self.blocked[r]) && (0..n).any(|r| !gone(r));
        if !all {
            self.quiet_since = None;
            return false;
        }
        let since = *self.quiet_since.get_or_insert_with(Instant::now);
        since.elapsed() >= QUIET
    }
}

/// Whether `op` is a poll: a test (`MPI_Test*`, `MPI_Request_get_status`)
/// or a nonblocking probe (`MPI_Iprobe`, `MPI_Improbe`), which a recorded
/// run reports only when it returned something.
fn polls(op: &Op) -> bool {
    matches!(
        op,
        Op::Test { .. }
            | Op::WinWait { test: true, .. }
            | Op::RequestGetStatus { .. }
            | Op::Probe {
                blocking: false,
                ..
            }
            | Op::Mprobe {
                blocking: false,
                ..
            }
    )
}

/// Whether `op` is a choosing completion call a recorded run follows: an
/// `MPI_Waitany` or `MPI_Waitsome`, or a `Testany` or `Testsome` (reported
/// only when it returns something).
fn picks(op: &Op) -> bool {
    matches!(
        op,
        Op::Wait {
            kind: WaitKind::Any | WaitKind::Some,
            ..
        } | Op::Test {
            kind: WaitKind::Any | WaitKind::Some,
            ..
        }
    )
}

impl Drop for Recorded<'_> {
    fn drop(&mut self) {
        self.ordinals.learn(&self.found, &self.lock_on);
    }
}

#[cfg(test)]
mod tests {
    use super::ByReq;

    #[test]
    fn receives_by_request_id_give_the_latest_ordinal_of_each_id_in_any_order() {
        let mut by = ByReq::default();
        // Rising ids, as a rank of one thread makes them.
        by.insert(3, 0);
        by.insert(7, 1);
        by.insert(9, 2);
        // A persistent receive started again under its id.
        by.insert(7, 3);
        // A thread's receive that came late, and an id that wrapped round.
        by.insert(5, 4);
        by.insert(1, 5);
        by.insert(5, 6);
        by.insert(12, 7);
        let got: Vec<Option<u64>> = [1, 3, 5, 7, 9, 12, 2, 8, 13]
            .iter()
            .map(|&q| by.get(q))
            .collect();
        assert_eq!(
            got,
            [
                Some(5),
                Some(0),
                Some(6),
                Some(3),
                Some(2),
                Some(7),
                None,
                None,
                None
            ]
        );
    }
}
