//! The input of the race rules: one interleaving's memory events and MPI
//! synchronisation, rank by rank in program order, as plain data.
//!
//! Memory is of two kinds. Window memory is named by window, the rank whose
//! segment it is, and a byte range in that segment: the targets of RMA calls
//! and the program's loads and stores of window memory (of its own segment,
//! or of another rank's segment of a shared-memory window). A buffer is a
//! byte range of the rank's own address space that is not window memory: the
//! origin and result buffers of RMA calls and the program's loads and stores
//! of them. Whoever builds a [`Run`] reports memory that lies in a window as
//! window memory; so too the buffer of a send, a receive or a nonblocking
//! collective ([`Event::Buffer`]) that lies in window memory.

use std::fmt;

/// A rank of `MPI_COMM_WORLD`.
pub type Rank = usize;

/// One event: the `index`-th entry of `rank`'s list in [`Run::ranks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    pub rank: Rank,
    pub index: usize,
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rank {} event {}", self.rank, self.index)
    }
}

/// A window: its index in [`Run::windows`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Win(pub u32);

/// A byte range: `len` bytes from `offset` (a displacement in a window
/// segment, or an address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bytes {
    pub offset: u64,
    pub len: u64,
}

impl Bytes {
    pub const fn new(offset: u64, len: u64) -> Bytes {
        Bytes { offset, len }
    }

    /// Whether the two ranges share a byte.
    pub fn overlaps(self, other: Bytes) -> bool {
        self.len > 0
            && other.len > 0
            && self.offset < other.offset.saturating_add(other.len)
            && other.offset < self.offset.saturating_add(self.len)
    }
}

/// Memory a load or store of the program touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// Bytes of `rank`'s segment of a window (another rank's only for a
    /// shared-memory window).
    Window { win: Win, rank: Rank, bytes: Bytes },
    /// Bytes of the rank's own memory outside every window.
    Buffer(Bytes),
}

/// An accumulate operation (`MPI_SUM`, `MPI_REPLACE`, ...), by a number the
/// builder of the run chooses, with [`AccOp::NO_OP`], [`AccOp::REPLACE`] and
/// [`AccOp::COMPARE_AND_SWAP`] reserved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccOp(pub u32);

impl AccOp {
    /// `MPI_NO_OP`: an atomic read.
    pub const NO_OP: AccOp = AccOp(0);
    /// `MPI_REPLACE`.
    pub const REPLACE: AccOp = AccOp(1);
    /// The operation of `MPI_Compare_and_swap`.
    pub const COMPARE_AND_SWAP: AccOp = AccOp(2);
    /// `MPI_SUM` (any other number is another operation).
    pub const SUM: AccOp = AccOp(3);
}

/// A predefined (basic) datatype, by a number the builder chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BasicType(pub u32);

/// What an RMA call does at its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmaKind {
    /// `MPI_Put`, `MPI_Rput`: writes the target.
    Put,
    /// `MPI_Get`, `MPI_Rget`: reads the target.
    Get,
    /// `MPI_Accumulate`, `MPI_Raccumulate`.
    Accumulate(AccOp, BasicType),
    /// `MPI_Get_accumulate`, `MPI_Rget_accumulate`.
    GetAccumulate(AccOp, BasicType),
    /// `MPI_Fetch_and_op`.
    FetchAndOp(AccOp, BasicType),
    /// `MPI_Compare_and_swap`.
    CompareAndSwap(BasicType),
}

impl RmaKind {
    /// The operation and type of an accumulate function (every kind but
    /// `Put` and `Get`).
    pub fn atomic(self) -> Option<(AccOp, BasicType)> {
        match self {
            RmaKind::Put | RmaKind::Get => None,
            RmaKind::Accumulate(op, ty)
            | RmaKind::GetAccumulate(op, ty)
            | RmaKind::FetchAndOp(op, ty) => Some((op, ty)),
            RmaKind::CompareAndSwap(ty) => Some((AccOp::COMPARE_AND_SWAP, ty)),
        }
    }

    /// Whether the call writes its target.
    pub fn writes_target(self) -> bool {
        match self.atomic() {
            None => self == RmaKind::Put,
            Some((op, _)) => op != AccOp::NO_OP,
        }
    }

    /// Whether the call brings target data back to the origin (a get, or an
    /// accumulate that fetches): its local completion is also its completion
    /// at the target.
    pub fn fetches(self) -> bool {
        !matches!(self, RmaKind::Put | RmaKind::Accumulate(..))
    }
}

/// An RMA communication call at its origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rma {
    pub kind: RmaKind,
    pub win: Win,
    pub target: Rank,
    /// The bytes of the target's segment it accesses.
    pub bytes: Bytes,
    /// The origin buffer MPI reads (`Put`, the accumulates' operand).
    pub origin: Option<Bytes>,
    /// The compare buffer MPI reads (`MPI_Compare_and_swap`).
    pub compare: Option<Bytes>,
    /// The buffer MPI writes (`Get`'s origin buffer, the fetching calls'
    /// result buffer).
    pub result: Option<Bytes>,
    /// The request of `MPI_Rput` and the other request forms.
    pub request: Option<u32>,
}

/// The target of a flush: one rank (`MPI_Win_flush`, `MPI_Win_flush_local`)
/// or every rank (`..._all`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlushTarget {
    One(Rank),
    All,
}

/// One event of a rank, in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A load of the program.
    Load(Place),
    /// A store of the program.
    Store(Place),
    /// An RMA communication call.
    Rma(Rma),
    /// A blocking collective (barrier, broadcast, ...: every blocking
    /// collective synchronises its members); the members of one match set
    /// share `set`.
    Collective { set: u32 },
    /// A send of the matched pair `msg`.
    Send { msg: u32 },
    /// The completion of the receive of the matched pair `msg` (the receive,
    /// or the wait or test that completed it).
    Recv { msg: u32 },
    /// `MPI_Win_fence`: the k-th fence of every member of the window's group
    /// form one match set.
    Fence { win: Win },
    /// `MPI_Win_post` to these origins.
    Post { win: Win, origins: Vec<Rank> },
    /// `MPI_Win_start` towards these targets (it returns once they posted).
    Start { win: Win, targets: Vec<Rank> },
    /// `MPI_Win_complete`.
    Complete { win: Win },
    /// `MPI_Win_wait`, or an `MPI_Win_test` that returned true.
    Wait { win: Win },
    /// `MPI_Win_lock`, returned: the lock is granted.
    Lock {
        win: Win,
        target: Rank,
        exclusive: bool,
    },
    /// `MPI_Win_unlock`.
    Unlock { win: Win, target: Rank },
    /// `MPI_Win_lock_all`: a shared lock on every member.
    LockAll { win: Win },
    /// `MPI_Win_unlock_all`.
    UnlockAll { win: Win },
    /// `MPI_Win_flush` (`local: false`) or `MPI_Win_flush_local`, and
    /// their `_all` forms.
    Flush {
        win: Win,
        target: FlushTarget,
        local: bool,
    },
    /// `MPI_Win_sync`.
    WinSync { win: Win },
    /// The wait or test that completed the request `req`: of an RMA call,
    /// or of a message or nonblocking collective call (see
    /// [`Event::Buffer`]).
    WaitReq { req: u32 },
    /// MPI reads (or, with `write`, writes) these bytes for a message or
    /// collective call whose buffer they are: from this event to the
    /// [`Event::WaitReq`] of `until` (a nonblocking call, whose buffer is
    /// MPI's until its request completes), or at this event only (`None`,
    /// a blocking call). A nonblocking call never completed owns them to
    /// the end of the run.
    Buffer {
        place: Place,
        write: bool,
        until: Option<u32>,
    },
}

/// The order in which the lock epochs on one target were granted: the
/// `Lock` and `LockAll` events, earliest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grants {
    pub win: Win,
    pub target: Rank,
    pub order: Vec<EventId>,
}

/// One interleaving's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Each rank's events in program order.
    pub ranks: Vec<Vec<Event>>,
    /// Each window's group, as world ranks.
    pub windows: Vec<Vec<Rank>>,
    /// The grant order of the lock epochs on each target that has any.
    pub grants: Vec<Grants>,
    /// The threads of the ranks that had several, by rank (a rank past the
    /// end of the list, or `None`, had one: its events are in program
    /// order).
    pub threads: Vec<Option<Threads>>,
}

/// Where the events of a rank that had several threads fall in its order.
/// A rank's events are listed in the order they were made; each event
/// comes after the earlier events of its own thread and after the events
/// of other threads it names in `after`, and after nothing else of its
/// rank. Every entry of `after` is an earlier event of the rank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Threads {
    /// Each event's thread.
    pub thread: Vec<u32>,
    /// Per event, the events of other threads that return before it (its
    /// thread's own synchronisation with them), as indices of the rank's
    /// events.
    pub after: Vec<Vec<usize>>,
}

impl Run {
    /// The threads of `rank`, if it had several.
    pub fn threads_of(&self, rank: Rank) -> Option<&Threads> {
        self.threads.get(rank).and_then(Option::as_ref)
    }

    /// The event `e`.
    pub fn event(&self, e: EventId) -> &Event {
        &self.ranks[e.rank][e.index]
    }
}

/// A record the rules cannot read, naming the event at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// The event names a window [`Run::windows`] does not have.
    UnknownWindow { at: EventId, win: Win },
    /// The event names a rank the run does not have.
    UnknownRank { at: EventId, rank: Rank },
    /// A receive whose send is not in the record.
    UnmatchedRecv { at: EventId, msg: u32 },
    /// A second send or receive of one message.
    DuplicateMessage { at: EventId, msg: u32 },
    /// A lock epoch that went on (its rank has later events) but is in no
    /// grant order of its target.
    UngrantedLock { at: EventId },
    /// A grant order names an event that is no lock of its window and
    /// target, or names it twice.
    NotALock { at: EventId },
    /// The synchronisation orders this event before itself.
    Cycle { at: EventId },
    /// A rank's threads do not describe its events: a list of another
    /// length, or an event ordered after one that is not earlier.
    BadThreads { at: EventId },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::UnknownWindow { at, win } => {
                write!(f, "{at}: window {} is not in the run", win.0)
            }
            InputError::UnknownRank { at, rank } => {
                write!(f, "{at}: rank {rank} is not in the run")
            }
            InputError::UnmatchedRecv { at, msg } => {
                write!(f, "{at}: the receive of message {msg} has no send")
            }
            InputError::DuplicateMessage { at, msg } => {
                write!(f, "{at}: message {msg} is sent or received twice")
            }
            InputError::UngrantedLock { at } => write!(
                f,
                "{at}: a lock epoch that went on is in no grant order of its target"
            ),
            InputError::NotALock { at } => write!(
                f,
                "{at}: a grant order names an event that is no lock of its target, or names it twice"
            ),
            InputError::BadThreads { at } => write!(
                f,
                "{at}: the rank's threads do not describe its events"
            ),
            InputError::Cycle { at } => {
                write!(f, "{at}: the synchronisation orders this event before itself")
            }
        }
    }
}

impl std::error::Error for InputError {}
