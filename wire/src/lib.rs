//! The messages exchanged between the interposition library (one per MPI
//! rank) and fib's scheduler, and their byte encoding.
//!
//! Every message travels as a frame: a little-endian `u32` body length, then
//! the body, whose first byte says which message it is. Ranks and tags are
//! carried as `i32` in the communicator's own numbering; the special values
//! below replace the MPI library's own constants, so the scheduler never needs
//! to know which MPI implementation the program runs on.
//!
//! Up messages ([`Up`]) go from a rank to the scheduler; down messages
//! ([`Down`]) answer them. A rank sends every intercepted call as
//! [`Up::Op`]; it waits for an answer only for the calls that block (see
//! [`Op::expects_reply`]).
//!
//! Which MPI functions fib models, refuses or lets through is decided here
//! too, once, by [`support()`] over the lists [`INTERCEPTED`],
//! [`UNSUPPORTED`] and [`PASS_THROUGH`].

use std::fmt;

pub mod env;
mod support;

pub use support::{support, Support, Why, INTERCEPTED, PASS_THROUGH, UNSUPPORTED};

/// `MPI_ANY_SOURCE` or `MPI_ANY_TAG` on the wire.
pub const ANY: i32 = -1;
/// `MPI_PROC_NULL` on the wire.
pub const PROC_NULL: i32 = -2;
/// The probe of an [`Op::Mrecv`] of `MPI_MESSAGE_NO_PROC`: none.
pub const NO_PROBE: u32 = u32::MAX;
/// `MPI_UNDEFINED` as a colour of `MPI_Comm_split`, on the wire.
pub const UNDEFINED: i32 = -3;
/// `MPI_ROOT` as the root of a collective on an intercommunicator, on the
/// wire (the root process itself; the other members of its group give
/// [`PROC_NULL`], the remote group the root's rank in its group).
pub const ROOT: i32 = -4;
/// Scheduler-wide id of `MPI_COMM_WORLD`.
pub const COMM_WORLD: u32 = 0;
/// Scheduler-wide id of `MPI_COMM_SELF` (one per rank, each with one member).
pub const COMM_SELF: u32 = 1;
/// The first id the scheduler hands out for a new communicator.
pub const FIRST_USER_COMM: u32 = 2;
/// The file word of a [`Site`] on the wire whose line word is a site-table
/// id (see [`Site::to_raw`]).
const RAW_TABLE: u32 = u32::MAX;
/// The bit of a file word that says the word names a module and the line
/// word is an offset in it ([`Site::Addr`]).
const RAW_ADDR: u32 = 1 << 31;
/// Module ids ([`module_id`]) have this bit set and [`RAW_ADDR`] clear, so
/// they never meet the small file ids ranks count up from 1.
const MODULE_BIT: u32 = 1 << 30;
/// The name an `Up::Unsupported` report gives to MPI calls from two threads
/// of a rank at once, which fib does not model.
pub const THREAD_MULTIPLE: &str = "MPI_THREAD_MULTIPLE";

/// Where a rank's MPI call was made, as the rank knows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Site {
    /// No instrumented call has named its site (a call from an
    /// uninstrumented library, or before the first one).
    #[default]
    Unknown,
    /// A line of a file previously named by [`Up::File`]: calls produced by
    /// the program's own macros report the macro use's `__FILE__` and
    /// `__LINE__`.
    Line { file: u32, line: u32 },
    /// An id of the program's site table: instrumented copies of the
    /// sources name every direct call this way.
    Table(u32),
    /// A call no instrumented site named, by its return address: `offset`
    /// bytes from the load base of the module (executable or shared
    /// library) previously named by [`Up::File`] under id `module` (see
    /// [`module_id`]).
    Addr { module: u32, offset: u32 },
}

/// The id under which a rank names the module at `path` in
/// [`Site::Addr`]: derived from the path alone, so that every rank names a
/// module the same way whatever order it meets modules in (ranks share one
/// table of names per run), and never equal to a file id.
pub fn module_id(path: &str) -> u32 {
    // FNV-1a, 32 bits.
    let mut h: u32 = 0x811c_9dc5;
    for b in path.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    MODULE_BIT | (h & (MODULE_BIT - 1))
}

impl Site {
    /// The two words that carry the site on the wire (and in the
    /// interposition library's atomics): file id 0 is unknown, file id
    /// `u32::MAX` says the line word is a site-table id, a file word with
    /// its top bit set names a module (the rest of it is the module id) and
    /// the line word is the offset. A module id outside those
    /// [`module_id`] gives is carried as unknown.
    pub fn to_raw(self) -> (u32, u32) {
        match self {
            Site::Unknown => (0, 0),
            Site::Table(id) => (RAW_TABLE, id),
            Site::Addr { module, offset } if module & RAW_ADDR == 0 && module & MODULE_BIT != 0 => {
                (RAW_ADDR | module, offset)
            }
            Site::Addr { .. } => (0, 0),
            Site::Line { file, line } => (file, line),
        }
    }

    /// The site two wire words carry (the inverse of [`Site::to_raw`]).
    pub fn from_raw(file: u32, line: u32) -> Site {
        match file {
            0 => Site::Unknown,
            RAW_TABLE => Site::Table(line),
            file if file & RAW_ADDR != 0 => Site::Addr {
                module: file & !RAW_ADDR,
                offset: line,
            },
            file => Site::Line { file, line },
        }
    }

    /// Whether the rank named where the call was made.
    pub fn is_known(self) -> bool {
        self != Site::Unknown
    }
}

/// How a send completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SendMode {
    /// `MPI_Send`/`MPI_Isend`: buffered unless the run is in zero-buffer mode.
    Standard,
    /// `MPI_Ssend`/`MPI_Issend`: completes only once matched.
    Sync,
    /// `MPI_Bsend`/`MPI_Ibsend`: buffered in the attached buffer, so it
    /// completes without a matching receive even in zero-buffer mode.
    Buffered,
    /// `MPI_Rsend`/`MPI_Irsend`: a standard send whose matching receive
    /// must already be posted when it is issued.
    Ready,
}

impl SendMode {
    /// Every mode, in the order of their wire codes (append new modes).
    pub const ALL: [SendMode; 4] = [
        SendMode::Standard,
        SendMode::Sync,
        SendMode::Buffered,
        SendMode::Ready,
    ];

    /// Whether a send in this mode completes only once matched, when
    /// `zero_buffer` says whether standard sends are synchronous.
    pub fn synchronous(self, zero_buffer: bool) -> bool {
        match self {
            SendMode::Sync => true,
            SendMode::Buffered => false,
            SendMode::Standard | SendMode::Ready => zero_buffer,
        }
    }
}

/// The completion calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    /// `MPI_Wait` / `MPI_Test`: one request.
    One,
    /// `MPI_Waitall` / `MPI_Testall`.
    All,
    /// `MPI_Waitany` / `MPI_Testany`.
    Any,
    /// `MPI_Waitsome` / `MPI_Testsome`.
    Some,
}

/// The collective operations that carry data or synchronise (communicator
/// constructors have their own [`Op`] variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollKind {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Scatter,
    Allgather,
    Alltoall,
    Gatherv,
    Scatterv,
    Allgatherv,
    Alltoallv,
    Alltoallw,
    Scan,
    Exscan,
    ReduceScatter,
    ReduceScatterBlock,
    // The nonblocking forms: each returns a request at once, and matches
    // only its own kind (an `MPI_Ibarrier` never matches an `MPI_Barrier`).
    Ibarrier,
    Ibcast,
    Ireduce,
    Iallreduce,
    Igather,
    Iscatter,
    Iallgather,
    Ialltoall,
    Igatherv,
    Iscatterv,
    Iallgatherv,
    Ialltoallv,
    Ialltoallw,
    Iscan,
    Iexscan,
    IreduceScatter,
    IreduceScatterBlock,
    // The neighbourhood collectives (on a communicator with a topology:
    // each rank exchanges data with its neighbours only, but every member
    // calls them in the communicator's collective order, and fib matches
    // them as collectives over the whole communicator), blocking and not.
    NeighborAllgather,
    NeighborAllgatherv,
    NeighborAlltoall,
    NeighborAlltoallv,
    NeighborAlltoallw,
    IneighborAllgather,
    IneighborAllgatherv,
    IneighborAlltoall,
    IneighborAlltoallv,
    IneighborAlltoallw,
}

impl CollKind {
    /// The MPI function's name.
    pub fn mpi_name(self) -> &'static str {
        match self {
            CollKind::Barrier => "MPI_Barrier",
            CollKind::Bcast => "MPI_Bcast",
            CollKind::Reduce => "MPI_Reduce",
            CollKind::Allreduce => "MPI_Allreduce",
            CollKind::Gather => "MPI_Gather",
            CollKind::Scatter => "MPI_Scatter",
            CollKind::Allgather => "MPI_Allgather",
            CollKind::Alltoall => "MPI_Alltoall",
            CollKind::Gatherv => "MPI_Gatherv",
            CollKind::Scatterv => "MPI_Scatterv",
            CollKind::Allgatherv => "MPI_Allgatherv",
            CollKind::Alltoallv => "MPI_Alltoallv",
            CollKind::Alltoallw => "MPI_Alltoallw",
            CollKind::Scan => "MPI_Scan",
            CollKind::Exscan => "MPI_Exscan",
            CollKind::ReduceScatter => "MPI_Reduce_scatter",
            CollKind::ReduceScatterBlock => "MPI_Reduce_scatter_block",
            CollKind::Ibarrier => "MPI_Ibarrier",
            CollKind::Ibcast => "MPI_Ibcast",
            CollKind::Ireduce => "MPI_Ireduce",
            CollKind::Iallreduce => "MPI_Iallreduce",
            CollKind::Igather => "MPI_Igather",
            CollKind::Iscatter => "MPI_Iscatter",
            CollKind::Iallgather => "MPI_Iallgather",
            CollKind::Ialltoall => "MPI_Ialltoall",
            CollKind::Igatherv => "MPI_Igatherv",
            CollKind::Iscatterv => "MPI_Iscatterv",
            CollKind::Iallgatherv => "MPI_Iallgatherv",
            CollKind::Ialltoallv => "MPI_Ialltoallv",
            CollKind::Ialltoallw => "MPI_Ialltoallw",
            CollKind::Iscan => "MPI_Iscan",
            CollKind::Iexscan => "MPI_Iexscan",
            CollKind::IreduceScatter => "MPI_Ireduce_scatter",
            CollKind::IreduceScatterBlock => "MPI_Ireduce_scatter_block",
            CollKind::NeighborAllgather => "MPI_Neighbor_allgather",
            CollKind::NeighborAllgatherv => "MPI_Neighbor_allgatherv",
            CollKind::NeighborAlltoall => "MPI_Neighbor_alltoall",
            CollKind::NeighborAlltoallv => "MPI_Neighbor_alltoallv",
            CollKind::NeighborAlltoallw => "MPI_Neighbor_alltoallw",
            CollKind::IneighborAllgather => "MPI_Ineighbor_allgather",
            CollKind::IneighborAllgatherv => "MPI_Ineighbor_allgatherv",
            CollKind::IneighborAlltoall => "MPI_Ineighbor_alltoall",
            CollKind::IneighborAlltoallv => "MPI_Ineighbor_alltoallv",
            CollKind::IneighborAlltoallw => "MPI_Ineighbor_alltoallw",
        }
    }

    /// Whether this is a nonblocking collective (`MPI_Ibarrier`, ...): the
    /// call returns a request, reported as [`Op::Icoll`].
    pub fn is_nonblocking(self) -> bool {
        self.blocking_form() != self
    }

    /// The blocking collective a nonblocking one is the form of (itself for
    /// a blocking one).
    pub fn blocking_form(self) -> CollKind {
        match self {
            CollKind::Ibarrier => CollKind::Barrier,
            CollKind::Ibcast => CollKind::Bcast,
            CollKind::Ireduce => CollKind::Reduce,
            CollKind::Iallreduce => CollKind::Allreduce,
            CollKind::Igather => CollKind::Gather,
            CollKind::Iscatter => CollKind::Scatter,
            CollKind::Iallgather => CollKind::Allgather,
            CollKind::Ialltoall => CollKind::Alltoall,
            CollKind::Igatherv => CollKind::Gatherv,
            CollKind::Iscatterv => CollKind::Scatterv,
            CollKind::Iallgatherv => CollKind::Allgatherv,
            CollKind::Ialltoallv => CollKind::Alltoallv,
            CollKind::Ialltoallw => CollKind::Alltoallw,
            CollKind::Iscan => CollKind::Scan,
            CollKind::Iexscan => CollKind::Exscan,
            CollKind::IreduceScatter => CollKind::ReduceScatter,
            CollKind::IreduceScatterBlock => CollKind::ReduceScatterBlock,
            CollKind::IneighborAllgather => CollKind::NeighborAllgather,
            CollKind::IneighborAllgatherv => CollKind::NeighborAllgatherv,
            CollKind::IneighborAlltoall => CollKind::NeighborAlltoall,
            CollKind::IneighborAlltoallv => CollKind::NeighborAlltoallv,
            CollKind::IneighborAlltoallw => CollKind::NeighborAlltoallw,
            k => k,
        }
    }

    /// Whether the collective synchronises like a barrier (`MPI_Barrier`,
    /// `MPI_Ibarrier`): its sites form barrier groups.
    pub fn is_barrier(self) -> bool {
        self.blocking_form() == CollKind::Barrier
    }

    /// Whether the operation has a root argument that must agree across ranks.
    pub fn has_root(self) -> bool {
        matches!(
            self.blocking_form(),
            CollKind::Bcast
                | CollKind::Reduce
                | CollKind::Gather
                | CollKind::Scatter
                | CollKind::Gatherv
                | CollKind::Scatterv
        )
    }

    /// Every kind, in the order of their wire codes (a code is the kind's
    /// position here: new kinds are appended, so existing codes stay).
    pub const ALL: [CollKind; 44] = [
        CollKind::Barrier,
        CollKind::Bcast,
        CollKind::Reduce,
        CollKind::Allreduce,
        CollKind::Gather,
        CollKind::Scatter,
        CollKind::Allgather,
        CollKind::Alltoall,
        CollKind::Gatherv,
        CollKind::Scatterv,
        CollKind::Allgatherv,
        CollKind::Alltoallv,
        CollKind::Alltoallw,
        CollKind::Scan,
        CollKind::Exscan,
        CollKind::ReduceScatter,
        CollKind::ReduceScatterBlock,
        CollKind::Ibarrier,
        CollKind::Ibcast,
        CollKind::Ireduce,
        CollKind::Iallreduce,
        CollKind::Igather,
        CollKind::Iscatter,
        CollKind::Iallgather,
        CollKind::Ialltoall,
        CollKind::Igatherv,
        CollKind::Iscatterv,
        CollKind::Iallgatherv,
        CollKind::Ialltoallv,
        CollKind::Ialltoallw,
        CollKind::Iscan,
        CollKind::Iexscan,
        CollKind::IreduceScatter,
        CollKind::IreduceScatterBlock,
        CollKind::NeighborAllgather,
        CollKind::NeighborAllgatherv,
        CollKind::NeighborAlltoall,
        CollKind::NeighborAlltoallv,
        CollKind::NeighborAlltoallw,
        CollKind::IneighborAllgather,
        CollKind::IneighborAllgatherv,
        CollKind::IneighborAlltoall,
        CollKind::IneighborAlltoallv,
        CollKind::IneighborAlltoallw,
    ];
}

/// The communicator constructors other than `MPI_Comm_split` that fib models
/// as a split of their parent communicator ([`Op::CommSplitAs`]): each rank
/// works out its colour and key from the call's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitKind {
    /// `MPI_Comm_split_type`.
    SplitType,
    /// `MPI_Cart_create`.
    CartCreate,
    /// `MPI_Cart_sub`.
    CartSub,
    /// `MPI_Graph_create`.
    GraphCreate,
    /// `MPI_Dist_graph_create`.
    DistGraphCreate,
    /// `MPI_Dist_graph_create_adjacent`.
    DistGraphCreateAdjacent,
    /// `MPI_Comm_dup_with_info`.
    DupWithInfo,
}

impl SplitKind {
    /// The MPI function's name.
    pub fn mpi_name(self) -> &'static str {
        match self {
            SplitKind::SplitType => "MPI_Comm_split_type",
            SplitKind::CartCreate => "MPI_Cart_create",
            SplitKind::CartSub => "MPI_Cart_sub",
            SplitKind::GraphCreate => "MPI_Graph_create",
            SplitKind::DistGraphCreate => "MPI_Dist_graph_create",
            SplitKind::DistGraphCreateAdjacent => "MPI_Dist_graph_create_adjacent",
            SplitKind::DupWithInfo => "MPI_Comm_dup_with_info",
        }
    }

    /// Every kind, in the order of their wire codes (append new kinds).
    pub const ALL: [SplitKind; 7] = [
        SplitKind::SplitType,
        SplitKind::CartCreate,
        SplitKind::CartSub,
        SplitKind::GraphCreate,
        SplitKind::DistGraphCreate,
        SplitKind::DistGraphCreateAdjacent,
        SplitKind::DupWithInfo,
    ];
}

/// One intercepted MPI call, as the scheduler sees it. Ranks in `dest`/`src`
/// are ranks in the communicator `comm` (or [`ANY`] / [`PROC_NULL`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A send. `req` is `None` for the blocking forms (`MPI_Send`, `MPI_Ssend`)
    /// and the request id handed to the program for `MPI_Isend`/`MPI_Issend`.
    Send {
        mode: SendMode,
        dest: i32,
        tag: i32,
        comm: u32,
        req: Option<u32>,
    },
    /// A receive; blocking (`MPI_Recv`) or not (`MPI_Irecv`). A blocking
    /// receive still carries a request id, used by [`Down::PostRecv`].
    Recv {
        src: i32,
        tag: i32,
        comm: u32,
        req: u32,
        blocking: bool,
    },
    /// `MPI_Wait*` on the listed (non-null) requests.
    Wait { kind: WaitKind, reqs: Vec<u32> },
    /// `MPI_Test*` on the listed (non-null) requests.
    Test { kind: WaitKind, reqs: Vec<u32> },
    /// `MPI_Probe` (`blocking`) or `MPI_Iprobe`.
    Probe {
        src: i32,
        tag: i32,
        comm: u32,
        blocking: bool,
    },
    /// A collective on `comm`; `root` is meaningful when [`CollKind::has_root`].
    Coll {
        kind: CollKind,
        comm: u32,
        root: i32,
    },
    /// A nonblocking collective ([`CollKind::is_nonblocking`]) on `comm`,
    /// whose request `req` the rank handed to the program; a wait or test
    /// on it completes once the collective has matched on every rank.
    Icoll {
        kind: CollKind,
        comm: u32,
        root: i32,
        req: u32,
    },
    /// `MPI_Comm_dup(comm)`.
    CommDup { comm: u32 },
    /// `MPI_Comm_split(comm, color, key)`; `color` may be [`UNDEFINED`].
    CommSplit { comm: u32, color: i32, key: i32 },
    /// A constructor `how` over `comm` that makes what `MPI_Comm_split(comm,
    /// color, key)` would: the rank computed `color` (or [`UNDEFINED`], for
    /// `MPI_COMM_NULL`) and `key` from the call's arguments.
    CommSplitAs {
        how: SplitKind,
        comm: u32,
        color: i32,
        key: i32,
    },
    /// `MPI_Comm_create(comm, group)`: the group's members as world ranks, in
    /// group order (the same list on every rank; empty for `MPI_GROUP_EMPTY`).
    CommCreate { comm: u32, members: Vec<u32> },
    /// `MPI_Comm_free`.
    CommFree { comm: u32 },
    /// `MPI_Request_free` of `req`: an active request's operation still
    /// matches and completes, but no wait or test will complete it; a
    /// persistent request is gone.
    RequestFree { req: u32 },
    /// A persistent request `req` made by `MPI_Recv_init` (`recv`) or by
    /// the `MPI_*send_init` of `mode`. Each `MPI_Start` of it is reported
    /// as the nonblocking send or receive it starts, with `req`.
    RequestInit {
        req: u32,
        recv: bool,
        mode: SendMode,
    },
    /// `MPI_Mprobe` (`blocking`) or `MPI_Improbe`: a probe that takes the
    /// message it finds, which no receive but the `MPI_Mrecv`/`MPI_Imrecv`
    /// of its message handle can get any more. The scheduler matches it as
    /// a receive `req` (an id of the rank's, never a request handed to the
    /// program): [`Down::PostRecv`] names the message's source and tag, and
    /// [`Down::Go`] follows; an `MPI_Improbe` that finds nothing is answered
    /// `Down::Probed { found: false, .. }`.
    Mprobe {
        src: i32,
        tag: i32,
        comm: u32,
        req: u32,
        blocking: bool,
    },
    /// `MPI_Mrecv` (`blocking`) or `MPI_Imrecv` (with request `req`) of a
    /// message a matched probe took: it matches nothing, and completes at
    /// once. `probe` is the `req` of the [`Op::Mprobe`] that took the
    /// message, or [`NO_PROBE`] for `MPI_MESSAGE_NO_PROC` (or a handle no
    /// probe of the rank returned).
    Mrecv {
        req: u32,
        blocking: bool,
        probe: u32,
    },
    /// `MPI_Request_get_status` of the active request `req`: a test that
    /// leaves the request active (a later wait or test completes it).
    /// Answered like `MPI_Test`.
    RequestGetStatus { req: u32 },
    /// `MPI_Cancel` of the active request `req`. Local, as in MPI: the rank
    /// goes on. A receive not matched yet may then be cancelled instead of
    /// getting a message, which the scheduler decides and tells with
    /// [`Down::Cancelled`]; a receive that got its message, and a send
    /// (whose cancel fib always fails), complete as usual.
    Cancel { req: u32 },
    /// `MPI_Finalize`.
    Finalize,
    /// What the rank's next call sends, receives or reduces, for the
    /// checks that compare it with the calls it matches: `dtype` is the
    /// name of the predefined datatype its datatype is made of (`MPI_INT`
    /// for an `MPI_Type_vector` of ints; empty when the datatype mixes
    /// several, or has no name), `count` how many of those elements, `op`
    /// the name of its predefined reduction operation (empty for none or a
    /// user-defined one). Not a call of its own: it precedes the calls it
    /// describes (every later send, receive and collective of the rank,
    /// until the next `Args`; a rank reports it only when it changes), and
    /// expects no answer.
    Args {
        dtype: String,
        count: i64,
        op: String,
    },
    /// `MPI_Comm_idup(comm)` (or `MPI_Comm_idup_with_info`, `info`): a
    /// nonblocking collective in `comm`'s collective order that makes a
    /// copy of `comm`, with the request `req` handed to the program. The
    /// rank waits for no answer; the wait or test that completes `req` is
    /// preceded by the new communicator's [`Down::NewComm`].
    CommIdup { comm: u32, req: u32, info: bool },
    /// `MPI_Comm_create_group(comm, group, tag)`: collective over the
    /// group's members only (as world ranks, in group order; the rank is
    /// one of them), which alone call it; calls match among those with the
    /// same `comm`, members and `tag`, apart from `comm`'s collectives.
    CommCreateGroup {
        comm: u32,
        members: Vec<u32>,
        tag: i32,
    },
    /// `MPI_Intercomm_create(local_comm, local_leader, peer_comm,
    /// remote_leader, tag)`: collective over the members of `local_comm`
    /// and of the other side's local communicator. `peer_comm`,
    /// `remote_leader` and `tag` matter only at the local leader (a
    /// non-leader that names no communicator the library knows reports
    /// [`COMM_WORLD`]). Answered with [`Down::NewComm`].
    IntercommCreate {
        local_comm: u32,
        local_leader: i32,
        peer_comm: u32,
        remote_leader: i32,
        tag: i32,
    },
    /// `MPI_Intercomm_merge(comm, high)`: collective over both groups of
    /// the intercommunicator `comm`. Answered with [`Down::NewComm`].
    IntercommMerge { comm: u32, high: bool },
}

impl Op {
    /// Whether the rank waits for a [`Down`] answer after sending this call.
    /// `zero_buffer` says whether standard sends are synchronous in this run.
    pub fn expects_reply(&self, zero_buffer: bool) -> bool {
        match self {
            Op::Send { mode, req, .. } => req.is_none() && mode.synchronous(zero_buffer),
            Op::Recv { blocking, .. } | Op::Mrecv { blocking, .. } => *blocking,
            Op::CommFree { .. }
            | Op::RequestFree { .. }
            | Op::RequestInit { .. }
            | Op::Icoll { .. }
            | Op::Cancel { .. }
            | Op::CommIdup { .. }
            | Op::Args { .. } => false,
            _ => true,
        }
    }
}

/// A message from a rank to the scheduler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Up {
    /// First message of every rank, sent from `MPI_Init`.
    Hello { rank: u32, size: u32, pid: u32 },
    /// Names a file id, or a module id ([`module_id`]), used in later
    /// [`Site`]s.
    File { id: u32, path: String },
    /// An intercepted call.
    Op { site: Site, op: Op },
    /// `MPI_Abort(comm, code)` was called.
    Abort { site: Site, code: i32 },
    /// The rank received a fatal signal; `site` is its last MPI call.
    Crash { site: Site, signal: i32 },
    /// The program called an MPI function fib does not model.
    Unsupported { site: Site, name: String },
    /// The MPI library raised error `code` (its text `text`) while the rank
    /// was in the call at `site`.
    MpiError { site: Site, code: i32, text: String },
    /// The process is exiting with a status other than 0; `site` is its
    /// last MPI call.
    Exit { site: Site, status: i32 },
    /// How the rank's next call ([`Up::Op`]) went ahead without the
    /// scheduler. With `posted`, the call is a receive with a named source
    /// that the rank posted to MPI itself (no receive of the rank was
    /// waiting for the scheduler, so MPI matches it as the engine will):
    /// the scheduler sends it no [`Down::PostRecv`]. With `settled`, the
    /// call (a blocking receive, or a wait whose requests complete without
    /// a choice) has already completed in MPI: the scheduler sends it no
    /// answer, and feeds the rank's later calls to the engine only once the
    /// engine has completed it too.
    Ahead { posted: bool, settled: bool },
    /// At `MPI_Finalize`: `count` handles that the call `call` (such as
    /// `MPI_Type_vector`) made at `site` were never freed. Sent just before
    /// the rank's `MPI_Finalize` ([`HandleKind`] says what they are).
    Leaked {
        site: Site,
        call: String,
        count: u32,
    },
    /// The call at `site` has an argument MPI does not accept (a negative
    /// count, a tag above `MPI_TAG_UB`, `MPI_COMM_NULL`, ...), found by the
    /// rank before it calls MPI; `message` says which. The rank then waits
    /// for the scheduler to end the run.
    Invalid { site: Site, message: String },
    /// With `on`, the rank has spent a while in a standard send that the
    /// engine has completed (buffered) but MPI has not: the program's own
    /// buffer is in flight, and MPI finishes it only once its receive is
    /// posted. Without `on`, the send has finished since. Sent only when
    /// sends are not copied (see `FIB_COPY_SENDS`); the scheduler reruns
    /// the interleaving with copies if no receive can come.
    Stuck { on: bool },
}

/// What kind of MPI object a handle-making call makes, for
/// [`Up::Leaked`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HandleKind {
    Group,
    Datatype,
    Op,
    Info,
    Errhandler,
}

impl HandleKind {
    /// What `call` makes, when it makes a handle the program must free.
    pub fn of(call: &str) -> Option<HandleKind> {
        HANDLE_MAKERS
            .iter()
            .find(|(name, _)| *name == call)
            .map(|(_, k)| *k)
    }

    /// The object's name in prose.
    pub fn noun(self) -> &'static str {
        match self {
            HandleKind::Group => "group",
            HandleKind::Datatype => "datatype",
            HandleKind::Op => "reduction operation",
            HandleKind::Info => "info object",
            HandleKind::Errhandler => "error handler",
        }
    }

    /// The call that frees it.
    pub fn free_call(self) -> &'static str {
        match self {
            HandleKind::Group => "MPI_Group_free",
            HandleKind::Datatype => "MPI_Type_free",
            HandleKind::Op => "MPI_Op_free",
            HandleKind::Info => "MPI_Info_free",
            HandleKind::Errhandler => "MPI_Errhandler_free",
        }
    }
}

/// The calls that make a handle the program must free, with what they
/// make; the interposition library tracks each and its free.
pub const HANDLE_MAKERS: &[(&str, HandleKind)] = &[
    ("MPI_Comm_group", HandleKind::Group),
    ("MPI_Group_incl", HandleKind::Group),
    ("MPI_Group_excl", HandleKind::Group),
    ("MPI_Group_range_incl", HandleKind::Group),
    ("MPI_Group_range_excl", HandleKind::Group),
    ("MPI_Group_union", HandleKind::Group),
    ("MPI_Group_intersection", HandleKind::Group),
    ("MPI_Group_difference", HandleKind::Group),
    ("MPI_Type_contiguous", HandleKind::Datatype),
    ("MPI_Type_vector", HandleKind::Datatype),
    ("MPI_Type_create_hvector", HandleKind::Datatype),
    ("MPI_Type_indexed", HandleKind::Datatype),
    ("MPI_Type_create_hindexed", HandleKind::Datatype),
    ("MPI_Type_create_indexed_block", HandleKind::Datatype),
    ("MPI_Type_create_hindexed_block", HandleKind::Datatype),
    ("MPI_Type_create_struct", HandleKind::Datatype),
    ("MPI_Type_create_subarray", HandleKind::Datatype),
    ("MPI_Type_create_resized", HandleKind::Datatype),
    ("MPI_Type_dup", HandleKind::Datatype),
    ("MPI_Op_create", HandleKind::Op),
    ("MPI_Info_create", HandleKind::Info),
    ("MPI_Info_dup", HandleKind::Info),
    ("MPI_Comm_create_errhandler", HandleKind::Errhandler),
];

/// A message from the scheduler to a rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Down {
    /// The blocking call the rank waits in may complete.
    Go,
    /// Post the deferred receive `req` with this source and tag (ranks in the
    /// receive's communicator). May arrive at any time, before the answer of
    /// whatever call the rank waits in.
    PostRecv { req: u32, src: i32, tag: i32 },
    /// Answer to `MPI_Probe`/`MPI_Iprobe` (and to an `MPI_Improbe` that
    /// finds nothing): whether a message is there, and
    /// which (source in the probe's communicator).
    Probed { found: bool, src: i32, tag: i32 },
    /// Answer to `MPI_Wait*`/`MPI_Test*`: the positions, in the request list
    /// the rank sent, of the requests that complete now. Empty means "flag is
    /// false" for the test calls.
    Done { indices: Vec<u32> },
    /// Answer to a communicator constructor: the new communicator's
    /// scheduler-wide id, or `-1` for `MPI_COMM_NULL`. Also sent ahead of
    /// the [`Down::Done`] of a wait or test that completes
    /// [`Op::CommIdup`] requests: one per such request, in the order of
    /// `Done`'s positions.
    NewComm { id: i32 },
    /// The receive of request `req`, which the program asked to cancel,
    /// is cancelled: it takes no message, and completes. Like
    /// [`Down::PostRecv`], it may arrive before the answer of whatever
    /// call the rank waits in.
    Cancelled { req: u32 },
}

/// A malformed frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed message: {}", self.0)
    }
}

impl std::error::Error for WireError {}

struct W<'a>(&'a mut Vec<u8>);

impl W<'_> {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn site(&mut self, s: Site) {
        let (file, line) = s.to_raw();
        self.u32(file);
        self.u32(line);
    }
    fn list(&mut self, v: &[u32]) {
        self.u32(v.len() as u32);
        for x in v {
            self.u32(*x);
        }
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

struct R<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> R<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.pos + n > self.buf.len() {
            return Err(WireError(format!(
                "truncated body ({} bytes, wanted {} more at {})",
                self.buf.len(),
                n,
                self.pos
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn i32(&mut self) -> Result<i32, WireError> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn bool(&mut self) -> Result<bool, WireError> {
        Ok(self.u8()? != 0)
    }
    fn site(&mut self) -> Result<Site, WireError> {
        let file = self.u32()?;
        Ok(Site::from_raw(file, self.u32()?))
    }
    fn list(&mut self) -> Result<Vec<u32>, WireError> {
        let n = self.u32()? as usize;
        if n > self.buf.len() {
            return Err(WireError(format!("list of {n} entries in a short body")));
        }
        (0..n).map(|_| self.u32()).collect()
    }
    fn str(&mut self) -> Result<String, WireError> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| WireError("string is not UTF-8".into()))
    }
    fn done(&self) -> Result<(), WireError> {
        if self.pos == self.buf.len() {
            Ok(())
        } else {
            Err(WireError(format!(
                "{} trailing bytes",
                self.buf.len() - self.pos
            )))
        }
    }
}

fn wait_kind_code(k: WaitKind) -> u8 {
    match k {
        WaitKind::One => 0,
        WaitKind::All => 1,
        WaitKind::Any => 2,
        WaitKind::Some => 3,
    }
}

fn wait_kind(c: u8) -> Result<WaitKind, WireError> {
    Ok(match c {
        0 => WaitKind::One,
        1 => WaitKind::All,
        2 => WaitKind::Any,
        3 => WaitKind::Some,
        _ => return Err(WireError(format!("wait kind {c}"))),
    })
}

fn coll_code(k: CollKind) -> u8 {
    CollKind::ALL.iter().position(|x| *x == k).unwrap() as u8
}

/// The bytes of a frame's length field, before its body.
pub const FRAME_HEADER: usize = 4;

/// Starts a frame in `out`; returns the offset of its length field.
fn begin(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; FRAME_HEADER]);
    at
}

fn end(out: &mut [u8], at: usize) {
    let len = (out.len() - at - FRAME_HEADER) as u32;
    out[at..at + FRAME_HEADER].copy_from_slice(&len.to_le_bytes());
}

/// Appends the frame body `body` (as [`Frames::next_body`] gave it) to
/// `out`, framed again, for [`Frames`] to split off later.
pub fn frame(body: &[u8], out: &mut Vec<u8>) {
    let at = begin(out);
    out.extend_from_slice(body);
    end(out, at);
}

fn encode_op(w: &mut W, op: &Op) {
    match op {
        Op::Send {
            mode,
            dest,
            tag,
            comm,
            req,
        } => {
            w.u8(1);
            w.u8(SendMode::ALL.iter().position(|m| m == mode).unwrap() as u8);
            w.i32(*dest);
            w.i32(*tag);
            w.u32(*comm);
            w.u8(req.is_some() as u8);
            w.u32(req.unwrap_or(0));
        }
        Op::Recv {
            src,
            tag,
            comm,
            req,
            blocking,
        } => {
            w.u8(2);
            w.i32(*src);
            w.i32(*tag);
            w.u32(*comm);
            w.u32(*req);
            w.u8(*blocking as u8);
        }
        Op::Wait { kind, reqs } => {
            w.u8(3);
            w.u8(wait_kind_code(*kind));
            w.list(reqs);
        }
        Op::Test { kind, reqs } => {
            w.u8(4);
            w.u8(wait_kind_code(*kind));
            w.list(reqs);
        }
        Op::Probe {
            src,
            tag,
            comm,
            blocking,
        } => {
            w.u8(5);
            w.i32(*src);
            w.i32(*tag);
            w.u32(*comm);
            w.u8(*blocking as u8);
        }
        Op::Coll { kind, comm, root } => {
            w.u8(6);
            w.u8(coll_code(*kind));
            w.u32(*comm);
            w.i32(*root);
        }
        Op::CommDup { comm } => {
            w.u8(7);
            w.u32(*comm);
        }
        Op::CommSplit { comm, color, key } => {
            w.u8(8);
            w.u32(*comm);
            w.i32(*color);
            w.i32(*key);
        }
        Op::CommCreate { comm, members } => {
            w.u8(9);
            w.u32(*comm);
            w.list(members);
        }
        Op::CommFree { comm } => {
            w.u8(10);
            w.u32(*comm);
        }
        Op::Finalize => w.u8(11),
        Op::Args { dtype, count, op } => {
            w.u8(40);
            w.str(dtype);
            w.i32(*count as i32);
            w.i32((*count >> 32) as i32);
            w.str(op);
        }
        Op::CommSplitAs {
            how,
            comm,
            color,
            key,
        } => {
            w.u8(12);
            w.u8(SplitKind::ALL.iter().position(|x| x == how).unwrap() as u8);
            w.u32(*comm);
            w.i32(*color);
            w.i32(*key);
        }
        Op::RequestFree { req } => {
            w.u8(13);
            w.u32(*req);
        }
        Op::RequestInit { req, recv, mode } => {
            w.u8(14);
            w.u32(*req);
            w.u8(*recv as u8);
            w.u8(SendMode::ALL.iter().position(|m| m == mode).unwrap() as u8);
        }
        Op::Icoll {
            kind,
            comm,
            root,
            req,
        } => {
            w.u8(15);
            w.u8(coll_code(*kind));
            w.u32(*comm);
            w.i32(*root);
            w.u32(*req);
        }
        Op::Mprobe {
            src,
            tag,
            comm,
            req,
            blocking,
        } => {
            w.u8(16);
            w.i32(*src);
            w.i32(*tag);
            w.u32(*comm);
            w.u32(*req);
            w.u8(*blocking as u8);
        }
        Op::Mrecv {
            req,
            blocking,
            probe,
        } => {
            w.u8(17);
            w.u32(*req);
            w.u8(*blocking as u8);
            w.u32(*probe);
        }
        Op::RequestGetStatus { req } => {
            w.u8(18);
            w.u32(*req);
        }
        Op::Cancel { req } => {
            w.u8(19);
            w.u32(*req);
        }
        Op::CommIdup { comm, req, info } => {
            w.u8(20);
            w.u32(*comm);
            w.u32(*req);
            w.u8(*info as u8);
        }
        Op::CommCreateGroup { comm, members, tag } => {
            w.u8(21);
            w.u32(*comm);
            w.list(members);
            w.i32(*tag);
        }
        Op::IntercommCreate {
            local_comm,
            local_leader,
            peer_comm,
            remote_leader,
            tag,
        } => {
            w.u8(25);
            w.u32(*local_comm);
            w.i32(*local_leader);
            w.u32(*peer_comm);
            w.i32(*remote_leader);
            w.i32(*tag);
        }
        Op::IntercommMerge { comm, high } => {
            w.u8(26);
            w.u32(*comm);
            w.u8(*high as u8);
        }
    }
}

fn decode_op(r: &mut R) -> Result<Op, WireError> {
    Ok(match r.u8()? {
        1 => {
            let m = r.u8()? as usize;
            let mode = *SendMode::ALL
                .get(m)
                .ok_or_else(|| WireError(format!("send mode {m}")))?;
            let dest = r.i32()?;
            let tag = r.i32()?;
            let comm = r.u32()?;
            let has = r.bool()?;
            let req = r.u32()?;
            Op::Send {
                mode,
                dest,
                tag,
                comm,
                req: has.then_some(req),
            }
        }
        2 => Op::Recv {
            src: r.i32()?,
            tag: r.i32()?,
            comm: r.u32()?,
            req: r.u32()?,
            blocking: r.bool()?,
        },
        3 => Op::Wait {
            kind: wait_kind(r.u8()?)?,
            reqs: r.list()?,
        },
        4 => Op::Test {
            kind: wait_kind(r.u8()?)?,
            reqs: r.list()?,
        },
        5 => Op::Probe {
            src: r.i32()?,
            tag: r.i32()?,
            comm: r.u32()?,
            blocking: r.bool()?,
        },
        6 => {
            let c = r.u8()? as usize;
            let kind = *CollKind::ALL
                .get(c)
                .ok_or_else(|| WireError(format!("collective kind {c}")))?;
            Op::Coll {
                kind,
                comm: r.u32()?,
                root: r.i32()?,
            }
        }
        7 => Op::CommDup { comm: r.u32()? },
        8 => Op::CommSplit {
            comm: r.u32()?,
            color: r.i32()?,
            key: r.i32()?,
        },
        9 => Op::CommCreate {
            comm: r.u32()?,
            members: r.list()?,
        },
        10 => Op::CommFree { comm: r.u32()? },
        11 => Op::Finalize,
        40 => {
            let dtype = r.str()?;
            let lo = r.i32()? as u32 as i64;
            let hi = r.i32()? as i64;
            Op::Args {
                dtype,
                count: hi << 32 | lo,
                op: r.str()?,
            }
        }
        13 => Op::RequestFree { req: r.u32()? },
        14 => {
            let req = r.u32()?;
            let recv = r.bool()?;
            let m = r.u8()? as usize;
            Op::RequestInit {
                req,
                recv,
                mode: *SendMode::ALL
                    .get(m)
                    .ok_or_else(|| WireError(format!("send mode {m}")))?,
            }
        }
        15 => {
            let c = r.u8()? as usize;
            let kind = *CollKind::ALL
                .get(c)
                .ok_or_else(|| WireError(format!("collective kind {c}")))?;
            Op::Icoll {
                kind,
                comm: r.u32()?,
                root: r.i32()?,
                req: r.u32()?,
            }
        }
        12 => {
            let c = r.u8()? as usize;
            let how = *SplitKind::ALL
                .get(c)
                .ok_or_else(|| WireError(format!("constructor kind {c}")))?;
            Op::CommSplitAs {
                how,
                comm: r.u32()?,
                color: r.i32()?,
                key: r.i32()?,
            }
        }
        16 => Op::Mprobe {
            src: r.i32()?,
            tag: r.i32()?,
            comm: r.u32()?,
            req: r.u32()?,
            blocking: r.bool()?,
        },
        17 => Op::Mrecv {
            req: r.u32()?,
            blocking: r.bool()?,
            probe: r.u32()?,
        },
        18 => Op::RequestGetStatus { req: r.u32()? },
        19 => Op::Cancel { req: r.u32()? },
        20 => Op::CommIdup {
            comm: r.u32()?,
            req: r.u32()?,
            info: r.bool()?,
        },
        21 => Op::CommCreateGroup {
            comm: r.u32()?,
            members: r.list()?,
            tag: r.i32()?,
        },
        25 => Op::IntercommCreate {
            local_comm: r.u32()?,
            local_leader: r.i32()?,
            peer_comm: r.u32()?,
            remote_leader: r.i32()?,
            tag: r.i32()?,
        },
        26 => Op::IntercommMerge {
            comm: r.u32()?,
            high: r.bool()?,
        },
        t => return Err(WireError(format!("operation tag {t}"))),
    })
}

impl Up {
    /// Appends this message, framed, to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let at = begin(out);
        let mut w = W(out);
        match self {
            Up::Hello { rank, size, pid } => {
                w.u8(1);
                w.u32(*rank);
                w.u32(*size);
                w.u32(*pid);
            }
            Up::File { id, path } => {
                w.u8(2);
                w.u32(*id);
                w.str(path);
            }
            Up::Op { site, op } => {
                w.u8(3);
                w.site(*site);
                encode_op(&mut w, op);
            }
            Up::Abort { site, code } => {
                w.u8(4);
                w.site(*site);
                w.i32(*code);
            }
            Up::Crash { site, signal } => {
                w.u8(5);
                w.site(*site);
                w.i32(*signal);
            }
            Up::Unsupported { site, name } => {
                w.u8(6);
                w.site(*site);
                w.str(name);
            }
            Up::MpiError { site, code, text } => {
                w.u8(7);
                w.site(*site);
                w.i32(*code);
                w.str(text);
            }
            Up::Exit { site, status } => {
                w.u8(8);
                w.site(*site);
                w.i32(*status);
            }
            Up::Ahead { posted, settled } => {
                w.u8(9);
                w.u8(u8::from(*posted) | u8::from(*settled) << 1);
            }
            Up::Stuck { on } => {
                w.u8(10);
                w.u8(u8::from(*on));
            }
            Up::Leaked { site, call, count } => {
                w.u8(20);
                w.site(*site);
                w.str(call);
                w.u32(*count);
            }
            Up::Invalid { site, message } => {
                w.u8(21);
                w.site(*site);
                w.str(message);
            }
        }
        end(out, at);
    }

    /// Decodes one frame body (without its length prefix).
    pub fn decode(body: &[u8]) -> Result<Up, WireError> {
        let mut r = R { buf: body, pos: 0 };
        let m = match r.u8()? {
            1 => Up::Hello {
                rank: r.u32()?,
                size: r.u32()?,
                pid: r.u32()?,
            },
            2 => Up::File {
                id: r.u32()?,
                path: r.str()?,
            },
            3 => Up::Op {
                site: r.site()?,
                op: decode_op(&mut r)?,
            },
            4 => Up::Abort {
                site: r.site()?,
                code: r.i32()?,
            },
            5 => Up::Crash {
                site: r.site()?,
                signal: r.i32()?,
            },
            6 => Up::Unsupported {
                site: r.site()?,
                name: r.str()?,
            },
            7 => Up::MpiError {
                site: r.site()?,
                code: r.i32()?,
                text: r.str()?,
            },
            8 => Up::Exit {
                site: r.site()?,
                status: r.i32()?,
            },
            10 => Up::Stuck { on: r.u8()? != 0 },
            20 => Up::Leaked {
                site: r.site()?,
                call: r.str()?,
                count: r.u32()?,
            },
            21 => Up::Invalid {
                site: r.site()?,
                message: r.str()?,
            },
            9 => {
                let bits = r.u8()?;
                if bits > 3 {
                    return Err(WireError(format!("ahead flags {bits}")));
                }
                Up::Ahead {
                    posted: bits & 1 != 0,
                    settled: bits & 2 != 0,
                }
            }
            t => return Err(WireError(format!("message tag {t}"))),
        };
        r.done()?;
        Ok(m)
    }
}

impl Down {
    /// Appends this message, framed, to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let at = begin(out);
        let mut w = W(out);
        match self {
            Down::Go => w.u8(1),
            Down::PostRecv { req, src, tag } => {
                w.u8(2);
                w.u32(*req);
                w.i32(*src);
                w.i32(*tag);
            }
            Down::Probed { found, src, tag } => {
                w.u8(3);
                w.u8(*found as u8);
                w.i32(*src);
                w.i32(*tag);
            }
            Down::Done { indices } => {
                w.u8(4);
                w.list(indices);
            }
            Down::NewComm { id } => {
                w.u8(5);
                w.i32(*id);
            }
            Down::Cancelled { req } => {
                w.u8(6);
                w.u32(*req);
            }
        }
        end(out, at);
    }

    /// Decodes one frame body (without its length prefix).
    pub fn decode(body: &[u8]) -> Result<Down, WireError> {
        let mut r = R { buf: body, pos: 0 };
        let m = match r.u8()? {
            1 => Down::Go,
            2 => Down::PostRecv {
                req: r.u32()?,
                src: r.i32()?,
                tag: r.i32()?,
            },
            3 => Down::Probed {
                found: r.bool()?,
                src: r.i32()?,
                tag: r.i32()?,
            },
            4 => Down::Done { indices: r.list()? },
            5 => Down::NewComm { id: r.i32()? },
            6 => Down::Cancelled { req: r.u32()? },
            t => return Err(WireError(format!("message tag {t}"))),
        };
        r.done()?;
        Ok(m)
    }
}

/// Collects bytes read from a stream and splits them into frame bodies.
#[derive(Default)]
pub struct Frames {
    buf: Vec<u8>,
    start: usize,
}

impl Frames {
    /// Appends freshly read bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete frame body, if one has fully arrived.
    pub fn next_body(&mut self) -> Option<&[u8]> {
        let avail = &self.buf[self.start..];
        if avail.len() < FRAME_HEADER {
            self.compact();
            return None;
        }
        let len = u32::from_le_bytes(avail[..FRAME_HEADER].try_into().unwrap()) as usize;
        if avail.len() < FRAME_HEADER + len {
            self.compact();
            return None;
        }
        let s = self.start + FRAME_HEADER;
        self.start = s + len;
        Some(&self.buf[s..s + len])
    }

    /// Whether bytes of an unfinished frame are waiting.
    pub fn has_partial(&self) -> bool {
        self.start < self.buf.len()
    }

    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_up(m: Up) {
        let mut out = Vec::new();
        m.encode(&mut out);
        let mut f = Frames::default();
        // Feed byte by byte: framing must not depend on read sizes.
        let mut got = Vec::new();
        for b in &out {
            f.push(std::slice::from_ref(b));
            while let Some(body) = f.next_body() {
                got.push(Up::decode(body).unwrap());
            }
        }
        assert_eq!(got, vec![m]);
        assert!(!f.has_partial());
        // A body framed again is the message as it was sent.
        let mut f = Frames::default();
        f.push(&out);
        let mut again = Vec::new();
        frame(f.next_body().unwrap(), &mut again);
        assert_eq!(again, out);
    }

    fn round_down(m: Down) {
        let mut out = Vec::new();
        m.encode(&mut out);
        assert_eq!(Down::decode(&out[4..]).unwrap(), m);
    }

    #[test]
    fn every_kind_of_site_round_trips_through_its_wire_words() {
        for site in [
            Site::Unknown,
            Site::Table(0),
            Site::Table(17),
            Site::Line { file: 1, line: 9 },
            Site::Addr {
                module: module_id("/tmp/prog"),
                offset: 0x1234,
            },
        ] {
            let (file, line) = site.to_raw();
            assert_eq!(Site::from_raw(file, line), site);
        }
        assert_eq!(Site::from_raw(0, 12), Site::Unknown);
        // A module id module_id cannot give does not pass for another site.
        let bad = Site::Addr {
            module: 7,
            offset: 1,
        };
        assert_eq!(bad.to_raw(), (0, 0));
    }

    #[test]
    fn module_ids_depend_on_the_path_only_and_are_no_file_ids() {
        let a = module_id("/tmp/prog");
        assert_eq!(a, module_id("/tmp/prog"));
        assert_ne!(a, module_id("/tmp/libwork.so"));
        for p in ["", "a", "/usr/lib/x86_64-linux-gnu/libc.so.6"] {
            let id = module_id(p);
            assert!(id >= MODULE_BIT && id & RAW_ADDR == 0, "{p}: {id:#x}");
        }
    }

    #[test]
    fn every_up_message_round_trips() {
        let site = Site::Line { file: 3, line: 42 };
        round_up(Up::Hello {
            rank: 2,
            size: 4,
            pid: 99,
        });
        round_up(Up::File {
            id: 1,
            path: "a/b.c".into(),
        });
        for op in [
            Op::Send {
                mode: SendMode::Sync,
                dest: 1,
                tag: ANY,
                comm: 7,
                req: Some(5),
            },
            Op::Send {
                mode: SendMode::Buffered,
                dest: 2,
                tag: 3,
                comm: 0,
                req: None,
            },
            Op::Send {
                mode: SendMode::Ready,
                dest: 0,
                tag: 1,
                comm: 4,
                req: Some(9),
            },
            Op::Send {
                mode: SendMode::Standard,
                dest: PROC_NULL,
                tag: 0,
                comm: 0,
                req: None,
            },
            Op::Recv {
                src: ANY,
                tag: 9,
                comm: 0,
                req: 3,
                blocking: true,
            },
            Op::Wait {
                kind: WaitKind::Some,
                reqs: vec![1, 2, 3],
            },
            Op::Test {
                kind: WaitKind::Any,
                reqs: vec![],
            },
            Op::Probe {
                src: 0,
                tag: ANY,
                comm: 1,
                blocking: false,
            },
            Op::Mprobe {
                src: ANY,
                tag: 4,
                comm: 1,
                req: 12,
                blocking: true,
            },
            Op::Mrecv {
                req: 13,
                blocking: false,
                probe: 12,
            },
            Op::RequestGetStatus { req: 14 },
            Op::Cancel { req: 15 },
            Op::CommIdup {
                comm: 2,
                req: 16,
                info: true,
            },
            Op::CommCreateGroup {
                comm: 0,
                members: vec![0, 2, 4],
                tag: 9,
            },
            Op::Coll {
                kind: CollKind::Alltoall,
                comm: 2,
                root: 0,
            },
            Op::Icoll {
                kind: CollKind::Iallreduce,
                comm: 2,
                root: 0,
                req: 9,
            },
            Op::CommDup { comm: 0 },
            Op::CommSplit {
                comm: 0,
                color: UNDEFINED,
                key: 3,
            },
            Op::CommCreate {
                comm: 0,
                members: vec![0, 2],
            },
            Op::CommFree { comm: 4 },
            Op::IntercommCreate {
                local_comm: 2,
                local_leader: 0,
                peer_comm: 0,
                remote_leader: 1,
                tag: 99,
            },
            Op::IntercommMerge {
                comm: 5,
                high: true,
            },
            Op::RequestFree { req: 12 },
            Op::RequestInit {
                req: 3,
                recv: false,
                mode: SendMode::Ready,
            },
            Op::RequestInit {
                req: 4,
                recv: true,
                mode: SendMode::Standard,
            },
            Op::Finalize,
            Op::Args {
                dtype: "MPI_INT".into(),
                count: -(1 << 40) + 3,
                op: String::new(),
            },
            Op::Args {
                dtype: String::new(),
                count: 1 << 33,
                op: "MPI_SUM".into(),
            },
        ] {
            round_up(Up::Op { site, op });
        }
        for kind in CollKind::ALL {
            round_up(Up::Op {
                site,
                op: Op::Coll {
                    kind,
                    comm: 3,
                    root: 1,
                },
            });
        }
        for how in SplitKind::ALL {
            round_up(Up::Op {
                site,
                op: Op::CommSplitAs {
                    how,
                    comm: 2,
                    color: UNDEFINED,
                    key: 5,
                },
            });
        }
        round_up(Up::Abort { site, code: 3 });
        round_up(Up::Exit { site, status: 3 });
        round_up(Up::MpiError {
            site,
            code: 15,
            text: "Message truncated".into(),
        });
        round_up(Up::Crash { site, signal: 11 });
        for (posted, settled) in [(true, false), (false, true), (true, true)] {
            round_up(Up::Ahead { posted, settled });
        }
        round_up(Up::Stuck { on: true });
        round_up(Up::Stuck { on: false });
        round_up(Up::Unsupported {
            site,
            name: "MPI_Bsend".into(),
        });
        round_up(Up::Leaked {
            site,
            call: "MPI_Type_vector".into(),
            count: 3,
        });
        round_up(Up::Invalid {
            site,
            message: "count -1 is negative".into(),
        });
    }

    #[test]
    fn every_down_message_round_trips() {
        round_down(Down::Go);
        round_down(Down::Cancelled { req: 9 });
        round_down(Down::PostRecv {
            req: 4,
            src: 1,
            tag: 17,
        });
        round_down(Down::Probed {
            found: true,
            src: 0,
            tag: 2,
        });
        round_down(Down::Done {
            indices: vec![0, 2],
        });
        round_down(Down::NewComm { id: -1 });
    }

    #[test]
    fn collective_codes_stay_where_they_were() {
        // Codes are positions in `CollKind::ALL`: the kinds fib modelled
        // first keep theirs, the later ones follow.
        assert_eq!(coll_code(CollKind::Barrier), 0);
        assert_eq!(coll_code(CollKind::Alltoall), 7);
        assert_eq!(coll_code(CollKind::Gatherv), 8);
        assert_eq!(coll_code(CollKind::ReduceScatterBlock), 16);
        let mut out = Vec::new();
        Up::Op {
            site: Site::Unknown,
            op: Op::Coll {
                kind: CollKind::Scan,
                comm: 0,
                root: 0,
            },
        }
        .encode(&mut out);
        // length, message tag, two site words, operation tag, kind code.
        assert_eq!(out[4 + 1 + 8 + 1], 13);
        assert_eq!(coll_code(CollKind::Ibarrier), 17);
        assert_eq!(coll_code(CollKind::IreduceScatterBlock), 33);
        assert_eq!(coll_code(CollKind::NeighborAllgather), 34);
        assert_eq!(coll_code(CollKind::IneighborAlltoallw), 43);
        assert!(Up::decode(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 6, 44, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(Up::decode(&[
            3, 0, 0, 0, 0, 0, 0, 0, 0, 12, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ])
        .is_err());
    }

    #[test]
    fn nonblocking_collectives_have_the_root_and_barrier_nature_of_their_blocking_form() {
        for k in CollKind::ALL {
            assert_eq!(
                k.is_nonblocking(),
                k.mpi_name().starts_with("MPI_I"),
                "{k:?}"
            );
            assert_eq!(k.has_root(), k.blocking_form().has_root());
            assert_eq!(
                k.mpi_name().replacen("MPI_I", "MPI_", 1).to_lowercase(),
                k.blocking_form().mpi_name().to_lowercase(),
                "{k:?}"
            );
        }
        let barriers: Vec<CollKind> = CollKind::ALL
            .into_iter()
            .filter(|k| k.is_barrier())
            .collect();
        assert_eq!(barriers, [CollKind::Barrier, CollKind::Ibarrier]);
    }

    #[test]
    fn only_gatherv_and_scatterv_of_the_new_kinds_have_a_root() {
        let rooted: Vec<CollKind> = CollKind::ALL
            .into_iter()
            .filter(|k| k.has_root() && !k.is_nonblocking())
            .collect();
        assert_eq!(
            rooted,
            [
                CollKind::Bcast,
                CollKind::Reduce,
                CollKind::Gather,
                CollKind::Scatter,
                CollKind::Gatherv,
                CollKind::Scatterv
            ]
        );
        assert_eq!(
            CollKind::ReduceScatterBlock.mpi_name(),
            "MPI_Reduce_scatter_block"
        );
        assert_eq!(SplitKind::CartSub.mpi_name(), "MPI_Cart_sub");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(Up::decode(&[]).is_err());
        assert!(Up::decode(&[3, 1, 2]).is_err());
        assert!(Up::decode(&[99]).is_err());
        assert!(Down::decode(&[4, 255, 255, 255, 255]).is_err());
    }

    #[test]
    fn replies_expected_only_for_blocking_calls() {
        let send = |mode, req| Op::Send {
            mode,
            dest: 0,
            tag: 0,
            comm: 0,
            req,
        };
        assert!(!send(SendMode::Standard, None).expects_reply(false));
        assert!(send(SendMode::Standard, None).expects_reply(true));
        assert!(send(SendMode::Sync, None).expects_reply(false));
        assert!(!send(SendMode::Sync, Some(1)).expects_reply(false));
        assert!(!send(SendMode::Buffered, None).expects_reply(true));
        assert!(send(SendMode::Ready, None).expects_reply(true));
        assert!(!send(SendMode::Ready, None).expects_reply(false));
        assert!(Op::Finalize.expects_reply(false));
        assert!(!Op::CommFree { comm: 2 }.expects_reply(false));
        assert!(!Op::RequestFree { req: 2 }.expects_reply(true));
        let ibarrier = Op::Icoll {
            kind: CollKind::Ibarrier,
            comm: 0,
            root: 0,
            req: 3,
        };
        assert!(!ibarrier.expects_reply(true));
        let idup = Op::CommIdup {
            comm: 0,
            req: 3,
            info: false,
        };
        assert!(!idup.expects_reply(false));
        let create = Op::CommCreateGroup {
            comm: 0,
            members: vec![0],
            tag: 0,
        };
        assert!(create.expects_reply(false));
    }
}
