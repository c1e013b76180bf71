//! Recorded runs (`FIB_RECORD=1`): the rank never waits for the scheduler.
//! Every receive is posted to MPI as the program makes it (from
//! `MPI_ANY_SOURCE`, or from the source the run's plan forces,
//! `FIB_FORCE`), every blocking call completes in MPI, and the reports go
//! in bulk; a wildcard receive says afterwards whom it got the message from
//! ([`fib_wire::Up::Took`]), and the scheduler reads the run back through
//! the engine. A rank that waits long in MPI says so
//! ([`fib_wire::Up::Blocked`]) after sending everything, so that the
//! scheduler can look for a deadlock with no rank answering it. A call
//! whose outcome only the scheduler gives in this version (a probe, a
//! test, `MPI_Waitany`, ...) ends the run ([`fib_wire::Up::Unrecorded`]).

use std::os::raw::c_int;

use mpi_sys::*;
use rustc_hash::FxHashMap as HashMap;

/// How long a rank waits in MPI before it says it is blocked.
pub const BLOCKED_AFTER: std::time::Duration = std::time::Duration::from_millis(200);

/// A recorded run's state in the rank.
pub struct Recording {
    /// Receive ordinals whose source the plan forces, with the world rank.
    forced: HashMap<u64, u32>,
    /// Receives made so far.
    receives: u64,
    /// Wildcard receives posted and not completed, by request id, with
    /// their communicator.
    pub wild: HashMap<u32, MPI_Comm>,
    /// The rank has said it is blocked and not yet that it is not.
    pub blocked: bool,
}

impl Recording {
    /// The recording `FIB_RECORD` and `FIB_FORCE` ask for rank `rank`, if
    /// any (`FIB_FORCE` lists `RANK/K:SOURCE` for every rank).
    pub fn from_env(rank: i32) -> Option<Recording> {
        if std::env::var(fib_wire::env::RECORD).ok()? != "1" {
            return None;
        }
        let forced = std::env::var(fib_wire::env::FORCE)
            .unwrap_or_default()
            .split(',')
            .filter(|s| !s.is_empty())
            .filter_map(|kv| {
                let (who, kv) = kv.split_once('/')?;
                let (k, r) = kv.split_once(':')?;
                (who.parse::<i32>().ok()? == rank).then_some(())?;
                Some((k.parse().ok()?, r.parse().ok()?))
            })
            .collect();
        Some(Recording {
            forced,
            receives: 0,
            wild: HashMap::default(),
            blocked: false,
        })
    }

    /// The source to post the next receive from: the program's `src`,
    /// unless it is `MPI_ANY_SOURCE` and the plan forces this receive.
    pub unsafe fn source(&mut self, src: c_int, comm: MPI_Comm) -> c_int {
        let k = self.receives;
        self.receives += 1;
        if src != RSMPI_ANY_SOURCE {
            return src;
        }
        match self.forced.get(&k) {
            Some(&w) => from_world(comm, w),
            None => src,
        }
    }
}

/// The rank in `comm` of world rank `w`.
unsafe fn from_world(comm: MPI_Comm, w: u32) -> c_int {
    let (mut world, mut group) = (RSMPI_GROUP_NULL, RSMPI_GROUP_NULL);
    PMPI_Comm_group(RSMPI_COMM_WORLD, &mut world);
    PMPI_Comm_group(comm, &mut group);
    let w = w as c_int;
    let mut r: c_int = 0;
    PMPI_Group_translate_ranks(world, 1, &w, group, &mut r);
    PMPI_Group_free(&mut world);
    PMPI_Group_free(&mut group);
    r
}

/// The world rank of rank `r` of `comm`.
pub unsafe fn to_world(comm: MPI_Comm, r: c_int) -> u32 {
    let (mut world, mut group) = (RSMPI_GROUP_NULL, RSMPI_GROUP_NULL);
    PMPI_Comm_group(RSMPI_COMM_WORLD, &mut world);
    PMPI_Comm_group(comm, &mut group);
    let mut w: c_int = 0;
    PMPI_Group_translate_ranks(group, 1, &r, world, &mut w);
    PMPI_Group_free(&mut world);
    PMPI_Group_free(&mut group);
    w as u32
}
