//! Recorded runs (`--mode recorded`): the ranks never wait for the
//! scheduler. Every call goes to MPI as the program makes it, each rank's
//! reports come in bulk, and a wildcard receive says afterwards whom it got
//! its message from ([`fib_wire::Up::Took`]); the engine reads the run back
//! ([`poe::Engine::following`]), taking at each choice past the plan what
//! the run took there. The plan itself is forced on the ranks: each planned
//! choice names the world rank whose message a receive takes
//! ([`fib_wire::env::FORCE`], by the receive's ordinal among its rank's
//! receives, which [`Ordinals`] learns from the runs that met it).
//!
//! A recorded run's engine catches up only once every rank has ended or
//! waits in MPI ([`fib_wire::Up::Blocked`]), so that it never chooses
//! before it knows what the run took; and a run in which every rank waits
//! so and the engine finds nothing left to match is a deadlock, found with
//! no rank answering the scheduler.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fib_wire::{Op, ANY};
use poe::engine::{Alternative, Outcome, Planned};
use poe::{Engine, OpId};

/// How long every rank still running must have said it waits before the
/// engine looks for a deadlock: a rank that has just been released sends
/// its next reports within this.
pub(super) const QUIET: Duration = Duration::from_millis(300);

/// The receive ordinals of the calls the runs of one exploration met, by
/// the engine's name for them: what a later run's plan is forced by.
#[derive(Default)]
pub struct Ordinals(Mutex<HashMap<OpId, u64>>);

impl Ordinals {
    fn learn(&self, found: &[(OpId, u64)]) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.extend(found.iter().copied());
    }

    /// [`fib_wire::env::FORCE`] for `plan`: for each planned choice, the
    /// receive that takes a message and the world rank it takes it from.
    /// `None` when a choice is not a receive's (a `Waitany`'s, a lock's):
    /// a recorded run cannot force it.
    pub(super) fn force(&self, plan: &[Planned]) -> Option<String> {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        for p in plan {
            let point = p.expect.as_ref()?;
            if p.prefer.is_some() {
                return None;
            }
            let (at, alt) = match point.alternatives.get(p.taken)? {
                Alternative::Defer { at, alt } => (*at, &**alt),
                a => (point.at, a),
            };
            let Alternative::Send(send) = alt else {
                return None;
            };
            let k = m.get(&at)?;
            out.push(format!("{}/{k}:{}", at.rank, send.rank));
        }
        Some(out.join(","))
    }
}

/// A receive of a recorded run: its name in the engine once fed, and the
/// world rank it took its message from once the rank said so.
#[derive(Default)]
struct Slot {
    op: Option<OpId>,
    took: Option<u32>,
}

/// One recorded run's state in the scheduler.
pub(super) struct Recorded<'a> {
    ordinals: &'a Ordinals,
    /// Per rank, its receives reported and fed so far: a receive's ordinal.
    reported: Vec<u64>,
    fed: Vec<u64>,
    /// Per rank, the ordinal of the latest wildcard receive reported under
    /// each request id (a completion, and so its `Took`, comes before the
    /// id is used again).
    by_req: Vec<HashMap<u32, u64>>,
    slots: HashMap<(usize, u64), Slot>,
    /// The ordinals of the receives fed, for the plans of later runs.
    found: Vec<(OpId, u64)>,
    /// Per rank, whether it last said it waits in MPI.
    pub blocked: Vec<bool>,
    /// Since when every rank still running has waited.
    quiet_since: Option<Instant>,
    /// A rank that made a call a recorded run cannot follow.
    pub unrecorded: Option<usize>,
    /// Per rank, the call it reported last, and where.
    pub last: Vec<(&'static str, fib_wire::Site)>,
}

impl<'a> Recorded<'a> {
    pub fn new(nprocs: usize, ordinals: &'a Ordinals) -> Recorded<'a> {
        Recorded {
            ordinals,
            reported: vec![0; nprocs],
            fed: vec![0; nprocs],
            by_req: vec![HashMap::new(); nprocs],
            slots: HashMap::new(),
            found: Vec::new(),
            blocked: vec![false; nprocs],
            quiet_since: None,
            unrecorded: None,
            last: vec![("a call", fib_wire::Site::default()); nprocs],
        }
    }

    /// Rank `r` reported `op`, made at `site`.
    pub fn reported(&mut self, r: usize, site: fib_wire::Site, op: &Op) {
        self.last[r] = (poe::engine::call_name(op), site);
        if let Op::Recv { req, src, .. } = op {
            let k = self.reported[r];
            self.reported[r] += 1;
            if *src == ANY {
                self.by_req[r].insert(*req, k);
            }
        }
    }

    /// Rank `r`'s call `op` goes to the engine now.
    pub fn fed(&mut self, r: usize, op: &Op, engine: &mut Engine) {
        let Op::Recv { src, .. } = op else { return };
        let k = self.fed[r];
        self.fed[r] += 1;
        let id = OpId {
            rank: r,
            index: engine.ops(r).len(),
        };
        self.found.push((id, k));
        if *src == ANY {
            let slot = self.slots.entry((r, k)).or_default();
            slot.op = Some(id);
            if let Some(w) = slot.took {
                engine.follow(id, Outcome::From(w as usize));
            }
        }
    }

    /// Rank `r`'s wildcard receive of request `req` took world rank `src`'s
    /// message.
    pub fn took(&mut self, r: usize, req: u32, src: u32, engine: &mut Engine) {
        let Some(&k) = self.by_req[r].get(&req) else {
            return;
        };
        let slot = self.slots.entry((r, k)).or_default();
        slot.took = Some(src);
        if let Some(id) = slot.op {
            engine.follow(id, Outcome::From(src as usize));
        }
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

impl Drop for Recorded<'_> {
    fn drop(&mut self) {
        self.ordinals.learn(&self.found);
    }
}
