//! What one run of the program produced, as the driver hands it over: how
//! it ended, what the engine recorded, and what the ranks said.

use fib_wire::{RmaFault, Site};
use poe::engine::{Choice, FiredList, Ops, RankView, RunEnd};

use crate::sites::FileNames;

/// How a run ended, seen from outside the engine too.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// The engine ended the run (completed, deadlock, mismatch, ...).
    Engine(RunEnd),
    /// A rank died of a signal after its last MPI call at `site`.
    Crash {
        rank: usize,
        signal: i32,
        site: Site,
    },
    /// A rank called `MPI_Abort`.
    Abort { rank: usize, code: i32, site: Site },
    /// A rank's process ended without `MPI_Finalize`.
    NoFinalize {
        rank: usize,
        site: Site,
        /// The exit status, when the rank reported a failing one.
        status: Option<i32>,
    },
    /// A rank passed `MPI_Finalize` and then exited with a failing status
    /// (`status`, or a fatal signal reported as a crash).
    BadExit {
        rank: usize,
        status: i32,
        site: Site,
    },
    /// A rank called an MPI function fib does not model.
    Unsupported {
        rank: usize,
        name: String,
        site: Site,
    },
    /// A rank found an argument of its call at `site` that MPI does not
    /// accept, before calling MPI.
    Invalid {
        rank: usize,
        message: String,
        site: Site,
    },
    /// A rank's call at `site` was to write the handle of the request it
    /// makes into a variable that still held the active request made at
    /// `first`, before calling MPI.
    Reused {
        rank: usize,
        site: Site,
        first: Site,
    },
    /// A rank found its one-sided call `call` at `site`, on window `win`
    /// made at `made` (none for a creation), wrong as `fault` says (an epoch error or an
    /// argument outside the window), before calling MPI.
    OneSided {
        rank: usize,
        site: Site,
        call: String,
        win: Option<u32>,
        /// The call that made the window (unknown for a creation).
        made: Site,
        fault: RmaFault,
    },
    /// A rank found a buffer of its call `call` at `site` running past
    /// the memory it points into, as `fault` says, before calling MPI.
    Overflow {
        rank: usize,
        site: Site,
        call: String,
        fault: fib_wire::Overflow,
    },
    /// The MPI library raised an error in a rank's call at `site`.
    MpiError {
        rank: usize,
        code: i32,
        text: String,
        site: Site,
    },
    /// The run went past its time limit.
    Timeout,
    /// `mpiexec` ended before every rank reached `MPI_Init`.
    LaunchFailed { status: String },
    /// A rank sent something the protocol does not allow.
    Protocol {
        rank: Option<usize>,
        message: String,
    },
}

impl Ending {
    /// Whether the run completed.
    pub fn completed(&self) -> bool {
        matches!(self, Ending::Engine(RunEnd::Completed))
    }

    /// Whether a rank failed in a way the launcher reports on stderr (a
    /// crash, abort, MPI error or bad exit), worth waiting for briefly.
    pub fn rank_failed(&self) -> bool {
        matches!(
            self,
            Ending::Crash { .. }
                | Ending::Abort { .. }
                | Ending::MpiError { .. }
                | Ending::NoFinalize { .. }
                | Ending::BadExit { .. }
        )
    }
}

/// Objects one call site of one rank made and never freed, as the rank
/// reported them at `MPI_Finalize` ([`fib_wire::Up::Leaked`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandleLeak {
    pub rank: usize,
    pub site: Site,
    /// The MPI function that made them (a [`fib_wire::HANDLE_MAKERS`] name).
    pub call: String,
    pub count: usize,
}

/// A rank touched memory MPI owned then ([`fib_wire::Up::Owned`]): its
/// load or store at `site`, or the buffer of the call made there, `size`
/// bytes at `offset` in the buffer of the pending operation `call` made
/// at `owner`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedAccess {
    pub rank: usize,
    /// How many calls the rank had reported when this came: a load or
    /// store was made after its call `calls - 1`, a new call's buffer is
    /// that of its call `calls - 1`.
    pub calls: u64,
    pub site: Site,
    pub access: fib_wire::Access,
    pub size: u64,
    pub offset: u64,
    pub owner: Site,
    pub call: String,
    /// With threads: the access is another thread's than the operation's
    /// call or completion, and nothing orders the two.
    pub unordered: Option<fib_wire::Unordered>,
}

/// Loads or stores (`store`) a rank made at `site` in memory watched
/// under `tag` ([`fib_wire::Up::Watched`]): byte ranges `[start, end)` from
/// the watched range's base. Their place in the rank's program order:
/// after its first `calls` calls (the calls it reported before them) and
/// before the next one. A thread's accesses while the rank has several
/// are sent ahead of the call of index `calls`, the first whose thread had
/// seen them, with `after`, how many of the rank's calls their thread had
/// seen return, and their `point` (`memrun.rs` orders them by these).
///
/// With `lent`, these bytes are instead the buffer of the rank's call of
/// index `calls` (made at `site`), which MPI writes (`store`) or reads
/// ([`fib_wire::Up::Lent`]): a consumer that reads `watched` as the
/// program's loads and stores skips these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchedAccesses {
    pub rank: usize,
    pub calls: u64,
    pub tag: u64,
    pub site: Site,
    pub store: bool,
    pub ranges: Vec<(u64, u64)>,
    pub lent: bool,
    /// A thread's accesses while the rank had several: per other thread,
    /// the latest of its calls the thread had seen return
    /// ([`CallThread::after`]).
    pub after: Vec<u64>,
    /// A thread's accesses while the rank had several: the thread and its
    /// own clock entry when it made them ([`CallThread::seen`]).
    pub point: Option<(u32, u32)>,
}

/// Which thread made a rank's call while it had several, and what of the
/// other threads it came after ([`fib_wire::Up::CallThread`]): the latest
/// call of each other thread that had returned (`after`, call indices),
/// and per thread the clock entry it had seen (`seen`: a load or store of
/// thread `u` whose [`WatchedAccesses::point`] entry is at most `seen[u]`
/// came before the call).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallThread {
    pub rank: usize,
    pub call: u64,
    pub thread: u32,
    pub after: Vec<u64>,
    pub seen: Vec<u32>,
}

/// A rank's thread fault ([`fib_wire::Up::Thread`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadIssue {
    pub rank: usize,
    pub fault: fib_wire::ThreadFault,
}

/// Everything one run produced.
#[derive(Clone, Debug)]
pub struct RunRecord {
    pub ending: Ending,
    pub choices: Vec<Choice>,
    pub fired: FiredList,
    /// Every rank's operations, for the Fib pass and for reports.
    pub ops: Vec<Ops>,
    pub ranks: Vec<RankView>,
    /// File ids named by the ranks.
    pub files: FileNames,
    pub calls: u64,
    pub stderr: String,
    /// What the ranks left behind, when the run completed.
    pub leaks: Vec<poe::Leak>,
    /// The objects (groups, datatypes, ...) the ranks said at
    /// `MPI_Finalize` they had not freed; read only when the run completed.
    pub handles: Vec<HandleLeak>,
    /// What the ranks touched of the memory MPI owned, in the order they
    /// said it.
    pub owned: Vec<OwnedAccess>,
    /// What the ranks found wrong with the way their threads call MPI.
    pub threads: Vec<ThreadIssue>,
    /// The ranks' accesses to watched memory, in each rank's order.
    pub watched: Vec<WatchedAccesses>,
    /// The threads of the calls of ranks that had several, as they said
    /// them (a later entry for the same call replaces an earlier one).
    pub call_threads: Vec<CallThread>,
    /// Every rank's calls rerun in the engine without buffering
    /// ([`poe::sim::rerun_calls`]), when the run completed with buffering,
    /// none of its calls could make the sequence depend on timing (the same
    /// calls are what the program makes under any buffering, so the rerun
    /// is exact), and its trace did not already show that they complete
    /// without buffering ([`poe::unbuffered::completes`]).
    pub unbuffered: Option<poe::sim::RunResult>,
    /// The run's exchangeable blocks: it stands for their other orders.
    pub exchanges: Vec<poe::engine::Exchange>,
    /// The struct datatypes the ranks' calls used ([`fib_wire::Up::StructType`]).
    pub struct_types: Vec<StructTypeUse>,
    /// The rows of wildcard receives that would be exchangeable blocks
    /// if their order reached nothing ([`poe::Engine::untried`]): the
    /// driver may try their other orders (`orders.rs`).
    pub untried: Vec<poe::engine::Exchange>,
    /// When the ranks hashed the data they sent: each rank's calls and
    /// data as one digest.
    pub streams: Option<Vec<crate::stream::Stream>>,
    /// How many probe runs tried rows of this run (`orders.rs`).
    pub probes: usize,
}

/// A call of `rank` at `site` that used a struct datatype: its blocks
/// (byte displacement, blocklength, datatype) and the extent of the
/// datatype the call named ([`fib_wire::Up::StructType`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructTypeUse {
    pub rank: usize,
    pub site: Site,
    pub blocks: Vec<(i64, i64, String)>,
    pub extent: i64,
}
