//! Recorded runs (`FIB_RECORD=1`): the rank never waits for the scheduler.
//! Every receive is posted to MPI as the program makes it (from
//! `MPI_ANY_SOURCE`, or from the source the run's plan forces,
//! `FIB_FORCE`), every blocking call completes in MPI, and the reports go
//! in bulk; a wildcard receive says afterwards whom it got the message from
//! ([`fib_wire::Up::Took`]), and the scheduler reads the run back through
//! the engine. A rank that waits long in MPI says so
//! ([`fib_wire::Up::Blocked`]) after sending everything, so that the
//! scheduler can look for a deadlock with no rank answering it. A call
//! `MPI_Waitany` and `MPI_Waitsome` return what completes first in MPI, or
//! the positions the plan forces, and say which ([`fib_wire::Up::Picked`]);
//! a blocking `MPI_Probe` from `MPI_ANY_SOURCE` finds what MPI shows it, or
//! the source the plan forces, and says whose ([`fib_wire::Up::Found`]), as
//! an `MPI_Iprobe` that finds something does (it then counts among the
//! blocking probes, and is reported as a test that returned; an
//! `MPI_Improbe` that finds one counts among the receives); a
//! blocking `MPI_Mprobe` takes its message as a receive does (it counts
//! among the receives, and says whose with [`fib_wire::Up::Took`]);
//! a communicator constructor runs in MPI, and the rank names the new
//! communicator itself ([`fib_wire::Up::Named`]; an `MPI_Comm_idup`'s as
//! its wait completes it, which is when the scheduler's engine names it).
//! A receive the program cancels is cancelled in MPI, and says at its
//! completion whether MPI cancelled it or whose message it got; one whose
//! outcome the plan forces is never posted (cancelled) or is left to
//! match (not cancelled).
//! A test returns what MPI has completed (or nothing, if the plan forces
//! other positions of a `Testany` or `Testsome` than those complete), and
//! says what ([`fib_wire::Up::Polled`]); a `Testany` or `Testsome` that
//! returns something counts among the `Waitany` and `Waitsome` calls. A
//! test that returns nothing is not reported (how many a run makes is
//! timing); a rank that has made only such tests for [`BLOCKED_AFTER`]
//! says it spins and is blocked ([`fib_wire::Up::Spinning`]): if every
//! other rank waits too, the scheduler checks the program itself (a
//! livelock is its to find).
//! A call whose outcome only the scheduler gives in this version (the
//! free of a wildcard receive still pending) ends the run
//! ([`fib_wire::Up::Unrecorded`]).
//! MPI's collective calls that wait without a word (communicator
//! constructors, window creations, fences and frees) are preceded by a
//! polled barrier of the library's ([`crate::coll::polled_barrier`]), so
//! that a rank left in one says it is blocked.

use std::os::raw::c_int;

use mpi_sys::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// How long a rank waits in MPI before it says it is blocked.
pub const BLOCKED_AFTER: std::time::Duration = std::time::Duration::from_millis(200);

/// A recorded run's state in the rank.
pub struct Recording {
    /// Receive ordinals whose outcome the plan forces: the world rank
    /// whose message it takes, or [`fib_wire::CANCELLED`].
    forced: HashMap<u64, u32>,
    /// The last receive made has its outcome forced ([`Recording::source`]).
    decided: bool,
    /// Receives whose outcome the plan forces, by request id: the
    /// program's `MPI_Cancel` leaves them as the plan says.
    pub kept: HashSet<u32>,
    /// Receives the program asked to cancel, their outcome not forced, by
    /// request id, with their communicator: each says at its completion
    /// whether MPI cancelled it.
    pub cancels: HashMap<u32, MPI_Comm>,
    /// Receives made so far.
    receives: u64,
    /// `MPI_Waitany` and `MPI_Waitsome` calls whose positions the plan
    /// forces, by their ordinal among the rank's calls of the two.
    picks: HashMap<u64, Vec<u32>>,
    /// `MPI_Waitany` and `MPI_Waitsome` calls made so far.
    waits: u64,
    /// Blocking probes from `MPI_ANY_SOURCE` whose source the plan forces,
    /// by their ordinal among the rank's blocking probes, with the world
    /// rank; and the blocking probes made so far.
    probes_forced: HashMap<u64, u32>,
    probes: u64,
    /// Lock calls (`MPI_Win_lock`, `MPI_Win_lock_all`) the plan holds back,
    /// by their ordinal among the rank's lock calls: each waits, at a
    /// target (a world rank), until another rank (world) was granted the
    /// window's lock there so many times; and the lock calls made so far.
    locks_forced: HashMap<u64, Vec<(u32, u32, u64)>>,
    locks: u64,
    /// The name the next communicator the rank makes gets
    /// ([`fib_wire::Up::Named`]).
    next_comm: u32,
    /// Wildcard receives posted and not completed, by request id, with
    /// their communicator.
    pub wild: HashMap<u32, MPI_Comm>,
    /// The rank has said it is blocked and not yet that it is not.
    pub blocked: bool,
    /// Since when the rank has made only tests that returned nothing, if
    /// it has since its last call reported ([`crate::state::Lib::polled`]).
    pub spin: Option<std::time::Instant>,
}

impl Recording {
    /// The recording `FIB_RECORD` and `FIB_FORCE` ask for rank `rank`, if
    /// any (`FIB_FORCE` lists `RANK/K:SOURCE` for every rank).
    pub fn from_env(rank: i32) -> Option<Recording> {
        if std::env::var(fib_wire::env::RECORD).ok()? != "1" {
            return None;
        }
        let mut forced = HashMap::default();
        let mut picks = HashMap::default();
        let mut probes_forced = HashMap::default();
        let mut locks_forced: HashMap<u64, Vec<(u32, u32, u64)>> = HashMap::default();
        for kv in std::env::var(fib_wire::env::FORCE)
            .unwrap_or_default()
            .split(',')
        {
            let Some((who, kv)) = kv.split_once('/') else {
                continue;
            };
            let Some((k, r)) = kv.split_once(':') else {
                continue;
            };
            if who.parse::<i32>().ok() != Some(rank) {
                continue;
            }
            if let Some(k) = k.strip_prefix('l') {
                // `lK:X@T#J`: the K-th lock call waits until world rank X
                // marked target T with J: its lock call J - 1 was granted
                // there.
                let wait = r.split_once('@').and_then(|(x, tj)| {
                    let (t, j) = tj.split_once('#')?;
                    Some((x.parse().ok()?, t.parse().ok()?, j.parse().ok()?))
                });
                if let (Ok(k), Some(wait)) = (k.parse(), wait) {
                    locks_forced.entry(k).or_default().push(wait);
                }
                continue;
            }
            if let Some(k) = k.strip_prefix('p') {
                // `pK:R`: the K-th blocking probe finds world rank R's message.
                if let (Ok(k), Ok(r)) = (k.parse(), r.parse()) {
                    probes_forced.insert(k, r);
                }
                continue;
            }
            match k.strip_prefix('w') {
                // `wK:I+J`: the K-th Waitany or Waitsome returns I and J.
                Some(k) => {
                    let at: Option<Vec<u32>> = r.split('+').map(|i| i.parse().ok()).collect();
                    if let (Ok(k), Some(at)) = (k.parse(), at) {
                        picks.insert(k, at);
                    }
                }
                None => {
                    // `K:c`: the K-th receive is cancelled.
                    let r = match r {
                        "c" => Ok(fib_wire::CANCELLED),
                        r => r.parse(),
                    };
                    if let (Ok(k), Ok(r)) = (k.parse(), r) {
                        forced.insert(k, r);
                    }
                }
            }
        }
        Some(Recording {
            forced,
            decided: false,
            kept: HashSet::default(),
            cancels: HashMap::default(),
            receives: 0,
            picks,
            waits: 0,
            probes_forced,
            probes: 0,
            locks_forced,
            locks: 0,
            next_comm: fib_wire::RECORDED_COMMS,
            wild: HashMap::default(),
            blocked: false,
            spin: None,
        })
    }

    /// The source to post the next receive from: the program's `src`,
    /// unless it is `MPI_ANY_SOURCE` and the plan forces this receive's
    /// message; `None` when the plan cancels it (it is never posted).
    /// [`Recording::keep`] then tells whether its outcome is forced.
    pub unsafe fn source(&mut self, src: c_int, comm: MPI_Comm) -> Option<c_int> {
        let k = self.receives;
        self.receives += 1;
        let forced = self.forced.get(&k).copied();
        self.decided = forced.is_some();
        match forced {
            Some(fib_wire::CANCELLED) => None,
            Some(w) if src == RSMPI_ANY_SOURCE => Some(from_world(comm, w)),
            _ => Some(src),
        }
    }

    /// [`Recording::source`] for an `MPI_Improbe`, which counts among the
    /// receives only if it finds a message ([`Recording::receive_found`]);
    /// a plan never cancels it.
    pub unsafe fn next_source(&self, src: c_int, comm: MPI_Comm) -> c_int {
        match self.forced.get(&self.receives) {
            Some(&w) if src == RSMPI_ANY_SOURCE && w != fib_wire::CANCELLED => from_world(comm, w),
            _ => src,
        }
    }

    /// An `MPI_Improbe` found a message: it counts among the receives.
    pub fn receive_found(&mut self) {
        self.receives += 1;
        self.decided = false;
    }

    /// The receive [`Recording::source`] last answered for is request
    /// `id`: its outcome is the plan's, or MPI's.
    pub fn keep(&mut self, id: u32) {
        if self.decided {
            self.kept.insert(id);
        } else {
            self.kept.remove(&id);
        }
    }
}

impl Recording {
    /// The source to probe for with the next blocking probe: the
    /// program's `src`, unless it is `MPI_ANY_SOURCE` and the plan forces
    /// this probe.
    pub unsafe fn probe_source(&mut self, src: c_int, comm: MPI_Comm) -> c_int {
        let src = self.next_probe_source(src, comm);
        self.probes += 1;
        src
    }

    /// [`Recording::probe_source`] for an `MPI_Iprobe`, which counts among
    /// the blocking probes only if it finds something
    /// ([`Recording::probe_found`]).
    pub unsafe fn next_probe_source(&self, src: c_int, comm: MPI_Comm) -> c_int {
        match self.probes_forced.get(&self.probes) {
            Some(&w) if src == RSMPI_ANY_SOURCE => from_world(comm, w),
            _ => src,
        }
    }

    /// The next lock call's ordinal among the rank's lock calls, and the
    /// marks it waits for (`(rank, target, mark)`, world ranks: the rank's
    /// mark at the target, one more than its lock call's ordinal, once
    /// that call was granted there), counting the call.
    pub fn next_lock(&mut self) -> (u64, Vec<(u32, u32, u64)>) {
        let k = self.locks;
        self.locks += 1;
        (k, self.locks_forced.remove(&k).unwrap_or_default())
    }

    /// An `MPI_Iprobe` found a message: it counts among the probes.
    pub fn probe_found(&mut self) {
        self.probes += 1;
    }

    /// A name for the communicator a constructor just made.
    pub fn name_comm(&mut self) -> u32 {
        self.next_comm += 1;
        self.next_comm - 1
    }

    /// The positions the plan forces the next `MPI_Waitany` or
    /// `MPI_Waitsome` (or `MPI_Testany` or `MPI_Testsome` that returns
    /// something) to return, if it does, without counting the call.
    pub fn peek_pick(&self) -> Option<&Vec<u32>> {
        self.picks.get(&self.waits)
    }

    /// The positions the plan forces the next `MPI_Waitany` or
    /// `MPI_Waitsome` to return, if it does.
    pub fn pick(&mut self) -> Option<Vec<u32>> {
        let k = self.waits;
        self.waits += 1;
        self.picks.remove(&k)
    }
}

/// The group a source rank of `comm` is a rank of: the remote group of an
/// intercommunicator.
unsafe fn source_group(comm: MPI_Comm) -> MPI_Group {
    let mut group = RSMPI_GROUP_NULL;
    if crate::values::is_inter(comm) {
        PMPI_Comm_remote_group(comm, &mut group);
    } else {
        PMPI_Comm_group(comm, &mut group);
    }
    group
}

/// The source rank in `comm` of world rank `w`.
unsafe fn from_world(comm: MPI_Comm, w: u32) -> c_int {
    translate(comm, w as c_int, false)
}

/// The world rank of source rank `r` of `comm`.
pub unsafe fn to_world(comm: MPI_Comm, r: c_int) -> u32 {
    translate(comm, r, true) as u32
}

/// Rank `r` of `comm`'s sources as a world rank (`into_world`), or world
/// rank `r` as a rank of `comm`'s sources.
unsafe fn translate(comm: MPI_Comm, r: c_int, into_world: bool) -> c_int {
    let mut world = RSMPI_GROUP_NULL;
    PMPI_Comm_group(RSMPI_COMM_WORLD, &mut world);
    let mut group = source_group(comm);
    let (from, to) = if into_world {
        (group, world)
    } else {
        (world, group)
    };
    let mut out: c_int = 0;
    PMPI_Group_translate_ranks(from, 1, &r, to, &mut out);
    PMPI_Group_free(&mut world);
    PMPI_Group_free(&mut group);
    out
}
