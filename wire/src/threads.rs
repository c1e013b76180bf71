//! What a rank finds wrong with the way its threads call MPI
//! ([`Up::Thread`](crate::Up::Thread)): a call the thread level MPI provided
//! does not allow, two calls of different threads that nothing the program
//! does orders, or threads calling MPI before the program read which level
//! it got. The rank finds these alone: which thread calls, the level, and
//! the happens-before order its threads' own synchronisation makes
//! (creation and join, mutexes, barriers, OpenMP regions) are all local.

use crate::site::Site;

/// A thread support level, as `MPI_Init_thread` names them, in MPI's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Single,
    Funneled,
    Serialized,
    Multiple,
}

impl Level {
    /// The level of its index in MPI's order (0 for `MPI_THREAD_SINGLE`).
    pub fn from_index(i: u8) -> Option<Level> {
        [
            Level::Single,
            Level::Funneled,
            Level::Serialized,
            Level::Multiple,
        ]
        .get(usize::from(i))
        .copied()
    }

    /// Its index in MPI's order.
    pub fn index(self) -> u8 {
        self as u8
    }

    /// The constant's name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Single => "MPI_THREAD_SINGLE",
            Level::Funneled => "MPI_THREAD_FUNNELED",
            Level::Serialized => "MPI_THREAD_SERIALIZED",
            Level::Multiple => "MPI_THREAD_MULTIPLE",
        }
    }
}

/// A thread fault. Threads are numbered per rank: 0 is the thread that
/// initialised MPI, the others in the order they first made an MPI call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ThreadFault {
    /// Thread `thread` (not the main one) called MPI at `site` while the
    /// level MPI provided (`level`, at `MPI_Init`/`MPI_Init_thread` at
    /// `init`) lets only the main thread call it; or, with `any_thread`,
    /// a thread (the main one, perhaps) made the call inside an OpenMP
    /// construct of a team of several threads that any of them may run
    /// (`single`, `sections`, `task`).
    NotMain {
        site: Site,
        thread: u32,
        level: Level,
        init: Site,
        any_thread: bool,
    },
    /// Thread `thread`'s call at `site` and thread `other`'s call at
    /// `other_site` are ordered by nothing the program does (no creation,
    /// join, lock, barrier or region of its threads lies between them),
    /// while the level (`level`, provided at `init`) lets only one thread
    /// at a time call MPI. `overlapped`: the two calls ran at once in this
    /// run (the second waited for the first to return).
    Concurrent {
        site: Site,
        thread: u32,
        other_site: Site,
        other: u32,
        level: Level,
        init: Site,
        overlapped: bool,
    },
    /// Under `MPI_THREAD_MULTIPLE`, thread `thread`'s completion call at
    /// `site` and thread `other`'s at `other_site` (a wait or a test) name
    /// the same request variable, and nothing the program does orders them.
    SharedRequest {
        site: Site,
        thread: u32,
        other_site: Site,
        other: u32,
    },
    /// Under `MPI_THREAD_MULTIPLE`, thread `thread`'s collective call at
    /// `site` and thread `other`'s at `other_site` are on one communicator,
    /// and nothing the program does orders them: which comes first in the
    /// communicator's collective order is timing.
    Collectives {
        site: Site,
        thread: u32,
        other_site: Site,
        other: u32,
    },
    /// Under `MPI_THREAD_MULTIPLE`, thread `thread`'s call at `site` puts a
    /// new request in a request variable whose request thread `other`'s
    /// wait or test at `other_site` completed, and nothing the program
    /// does orders the completion before the new call: in another
    /// execution the new request overwrites the old one while it is still
    /// active.
    ReusedRequest {
        site: Site,
        thread: u32,
        other_site: Site,
        other: u32,
    },
    /// Thread `thread` called MPI at `site`, and the program had not yet
    /// read the level `MPI_Init_thread` at `init` provided (`level`; it
    /// asked for `required`).
    Unchecked {
        site: Site,
        thread: u32,
        init: Site,
        required: Level,
        level: Level,
    },
}

impl ThreadFault {
    /// The call at fault.
    pub fn site(&self) -> Site {
        match self {
            ThreadFault::NotMain { site, .. }
            | ThreadFault::Concurrent { site, .. }
            | ThreadFault::SharedRequest { site, .. }
            | ThreadFault::Collectives { site, .. }
            | ThreadFault::ReusedRequest { site, .. }
            | ThreadFault::Unchecked { site, .. } => *site,
        }
    }
}

/// A load or store (or a call's buffer) of one thread against an operation
/// of another that nothing the program does orders it with
/// ([`Up::Owned`](crate::Up::Owned)): the accessing thread, the other
/// thread, and whether the access came before the other thread's call that
/// started the operation (else after the call that completed it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unordered {
    pub thread: u32,
    pub other: u32,
    pub before_call: bool,
}
