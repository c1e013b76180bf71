//! The intercepted MPI calls as the scheduler sees them ([`Op`]), and the
//! small enums they are made of: how a send completes ([`SendMode`]), which
//! completion call waits or tests ([`WaitKind`]), which collective
//! ([`CollKind`]) or communicator constructor ([`SplitKind`]) a call is, and
//! what kind of handle a handle-making call makes ([`HandleKind`],
//! [`HANDLE_MAKERS`]). Their wire codes are in the codec module.

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

/// How a window's memory is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinFlavor {
    /// `MPI_Win_create`: memory the program gives.
    Create,
    /// `MPI_Win_allocate`: memory MPI allocates.
    Allocate,
    /// `MPI_Win_allocate_shared`: memory MPI allocates, which every rank of
    /// the window can load and store.
    Shared,
    /// `MPI_Win_create_dynamic`: memory attached later.
    Dynamic,
}

impl WinFlavor {
    /// Every flavor, in the order of their wire codes (append new ones).
    pub const ALL: [WinFlavor; 4] = [
        WinFlavor::Create,
        WinFlavor::Allocate,
        WinFlavor::Shared,
        WinFlavor::Dynamic,
    ];

    /// The MPI function's name.
    pub fn mpi_name(self) -> &'static str {
        match self {
            WinFlavor::Create => "MPI_Win_create",
            WinFlavor::Allocate => "MPI_Win_allocate",
            WinFlavor::Shared => "MPI_Win_allocate_shared",
            WinFlavor::Dynamic => "MPI_Win_create_dynamic",
        }
    }
}

/// What a one-sided communication call does at its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmaKind {
    /// `MPI_Put`, `MPI_Rput`: writes the target.
    Put,
    /// `MPI_Get`, `MPI_Rget`: reads the target.
    Get,
    /// `MPI_Accumulate`, `MPI_Raccumulate`: combines into the target.
    Acc,
    /// `MPI_Get_accumulate`, `MPI_Rget_accumulate`.
    GetAcc,
    /// `MPI_Fetch_and_op`.
    FetchOp,
    /// `MPI_Compare_and_swap`.
    Cas,
}

impl RmaKind {
    /// Every kind, in the order of their wire codes (append new ones).
    pub const ALL: [RmaKind; 6] = [
        RmaKind::Put,
        RmaKind::Get,
        RmaKind::Acc,
        RmaKind::GetAcc,
        RmaKind::FetchOp,
        RmaKind::Cas,
    ];

    /// The MPI function's name, in its request form with `request`.
    pub fn mpi_name(self, request: bool) -> &'static str {
        match (self, request) {
            (RmaKind::Put, false) => "MPI_Put",
            (RmaKind::Put, true) => "MPI_Rput",
            (RmaKind::Get, false) => "MPI_Get",
            (RmaKind::Get, true) => "MPI_Rget",
            (RmaKind::Acc, false) => "MPI_Accumulate",
            (RmaKind::Acc, true) => "MPI_Raccumulate",
            (RmaKind::GetAcc, false) => "MPI_Get_accumulate",
            (RmaKind::GetAcc, true) => "MPI_Rget_accumulate",
            (RmaKind::FetchOp, _) => "MPI_Fetch_and_op",
            (RmaKind::Cas, _) => "MPI_Compare_and_swap",
        }
    }

    /// Whether it writes the target's memory.
    pub fn writes(self) -> bool {
        self != RmaKind::Get
    }

    /// Whether it is one of the accumulates, atomic per basic element
    /// with each other for the same operation and basic datatype.
    pub fn accumulates(self) -> bool {
        !matches!(self, RmaKind::Put | RmaKind::Get)
    }
}

/// The passive-target synchronisation calls that complete at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlushKind {
    /// `MPI_Win_flush(target)`.
    Flush,
    /// `MPI_Win_flush_all`.
    FlushAll,
    /// `MPI_Win_flush_local(target)`.
    FlushLocal,
    /// `MPI_Win_flush_local_all`.
    FlushLocalAll,
    /// `MPI_Win_sync`.
    Sync,
}

impl FlushKind {
    /// Every kind, in the order of their wire codes (append new ones).
    pub const ALL: [FlushKind; 5] = [
        FlushKind::Flush,
        FlushKind::FlushAll,
        FlushKind::FlushLocal,
        FlushKind::FlushLocalAll,
        FlushKind::Sync,
    ];

    /// The MPI function's name.
    pub fn mpi_name(self) -> &'static str {
        match self {
            FlushKind::Flush => "MPI_Win_flush",
            FlushKind::FlushAll => "MPI_Win_flush_all",
            FlushKind::FlushLocal => "MPI_Win_flush_local",
            FlushKind::FlushLocalAll => "MPI_Win_flush_local_all",
            FlushKind::Sync => "MPI_Win_sync",
        }
    }

    /// Whether the call names a target.
    pub fn has_target(self) -> bool {
        matches!(self, FlushKind::Flush | FlushKind::FlushLocal)
    }
}

/// One intercepted MPI call, as the scheduler sees it. Ranks in `dest`/`src`
/// are ranks in the communicator `comm` (or [`ANY`](crate::ANY) /
/// [`PROC_NULL`](crate::PROC_NULL)).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    /// receive still carries a request id, used by
    /// [`Down::PostRecv`](crate::Down::PostRecv).
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
    /// `MPI_Comm_split(comm, color, key)`; `color` may be
    /// [`UNDEFINED`](crate::UNDEFINED).
    CommSplit { comm: u32, color: i32, key: i32 },
    /// A constructor `how` over `comm` that makes what `MPI_Comm_split(comm,
    /// color, key)` would: the rank computed `color` (or
    /// [`UNDEFINED`](crate::UNDEFINED), for `MPI_COMM_NULL`) and `key` from the
    /// call's arguments.
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
    /// message it finds, which no receive but the `MPI_Mrecv`/`MPI_Imrecv` of
    /// its message handle can get any more. The scheduler matches it as a
    /// receive `req` (an id of the rank's, never a request handed to the
    /// program): [`Down::PostRecv`](crate::Down::PostRecv) names the message's
    /// source and tag, and [`Down::Go`](crate::Down::Go) follows; an
    /// `MPI_Improbe` that finds nothing is answered `Down::Probed { found:
    /// false, .. }`.
    Mprobe {
        src: i32,
        tag: i32,
        comm: u32,
        req: u32,
        blocking: bool,
    },
    /// `MPI_Mrecv` (`blocking`) or `MPI_Imrecv` (with request `req`) of a
    /// message a matched probe took: it matches nothing, and completes at once.
    /// `probe` is the `req` of the [`Op::Mprobe`] that took the message, or
    /// [`NO_PROBE`](crate::NO_PROBE) for `MPI_MESSAGE_NO_PROC` (or a handle no
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
    /// [`Down::Cancelled`](crate::Down::Cancelled); a receive that got its
    /// message, and a send (whose cancel fib always fails), complete as usual.
    Cancel { req: u32 },
    /// `MPI_Finalize`.
    Finalize,
    /// What the rank's next call sends, receives or reduces, for the
    /// checks that compare it with the calls it matches: `dtype` is the
    /// name of the predefined datatype its datatype is made of (`MPI_INT`
    /// for an `MPI_Type_vector` of ints; empty when the datatype mixes
    /// several, or has no name), `count` how many of those elements, `op`
    /// the name of its predefined reduction operation (empty for none or a
    /// user-defined one). `counts`, for the root of `MPI_Gatherv` and
    /// `MPI_Scatterv` and every member of `MPI_Allgatherv` (and their
    /// nonblocking forms), is how many of those elements it receives from
    /// or sends to each rank of the communicator, in rank order; empty for
    /// every other call. Which side of a rooted collective `dtype` and
    /// `count` describe depends on the rank: the root's receive (gather) or
    /// send (scatter), every other rank's send (gather) or receive
    /// (scatter). Not a call of its own: it precedes the calls it describes
    /// (every later send, receive and collective of the rank, until the
    /// next `Args`; a rank reports it only when it changes), and expects no
    /// answer.
    Args {
        dtype: String,
        count: i64,
        op: String,
        counts: Vec<i64>,
    },
    /// `MPI_Comm_idup(comm)` (or `MPI_Comm_idup_with_info`, `info`): a
    /// nonblocking collective in `comm`'s collective order that makes a copy of
    /// `comm`, with the request `req` handed to the program. The rank waits for
    /// no answer; the wait or test that completes `req` is preceded by the new
    /// communicator's [`Down::NewComm`](crate::Down::NewComm).
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
    /// remote_leader, tag)`: collective over the members of `local_comm` and of
    /// the other side's local communicator. `peer_comm`, `remote_leader` and
    /// `tag` matter only at the local leader (a non-leader that names no
    /// communicator the library knows reports
    /// [`COMM_WORLD`](crate::COMM_WORLD)). Answered with
    /// [`Down::NewComm`](crate::Down::NewComm).
    IntercommCreate {
        local_comm: u32,
        local_leader: i32,
        peer_comm: u32,
        remote_leader: i32,
        tag: i32,
    },
    /// `MPI_Intercomm_merge(comm, high)`: collective over both groups of the
    /// intercommunicator `comm`. Answered with
    /// [`Down::NewComm`](crate::Down::NewComm).
    IntercommMerge { comm: u32, high: bool },
    // One-sided communication (wire codes 60-79). A window is named by the
    // id the scheduler gives it at creation, like a communicator's; ranks
    // in these calls are ranks of the window's group.
    /// A window made over `comm` (`MPI_Win_create`, `MPI_Win_allocate`,
    /// `MPI_Win_allocate_shared`, `MPI_Win_create_dynamic`, by `flavor`):
    /// collective in `comm`'s collective order. Answered with
    /// [`Down::NewComm`](crate::Down::NewComm), the window's id.
    WinCreate { comm: u32, flavor: WinFlavor },
    /// `MPI_Win_free(win)`: collective over the window's group.
    WinFree { win: u32 },
    /// `MPI_Win_fence(win)`: collective over the window's group.
    WinFence { win: u32 },
    /// A communication call: `kind` at rank `target`, on the `bytes` bytes
    /// of the target's window from byte `disp` (the displacement times the
    /// target's displacement unit; for a dynamic window, the address).
    /// `req` is the request of the `MPI_R*` forms. `op` and `dtype` are the
    /// accumulate's predefined operation and basic datatype (empty when
    /// there is none or fib cannot name it). Never waits.
    Rma {
        win: u32,
        kind: RmaKind,
        target: i32,
        disp: u64,
        bytes: u64,
        req: Option<u32>,
        op: String,
        dtype: String,
    },
    /// `MPI_Win_post(group, .., win)`: opens an exposure epoch to the
    /// origins `group`. Never waits.
    WinPost { win: u32, group: Vec<u32> },
    /// `MPI_Win_start(group, .., win)`: waits until every target of `group`
    /// has posted to the rank.
    WinStart { win: u32, group: Vec<u32> },
    /// `MPI_Win_complete(win)`: ends the access epoch. Never waits.
    WinComplete { win: u32 },
    /// `MPI_Win_wait(win)` (or `MPI_Win_test`, `test`): the exposure epoch
    /// ends once every origin of the post's group has completed. A test is
    /// answered [`Down::Done`](crate::Down::Done), empty when it fails.
    WinWait { win: u32, test: bool },
    /// `MPI_Win_lock(type, target, .., win)`: waits until the lock is
    /// granted.
    WinLock {
        win: u32,
        target: i32,
        exclusive: bool,
    },
    /// `MPI_Win_unlock(target, win)`, reported once MPI has released the
    /// lock. Never waits.
    WinUnlock { win: u32, target: i32 },
    /// `MPI_Win_lock_all(.., win)`: shared locks on every rank of the
    /// window; waits until they are granted.
    WinLockAll { win: u32 },
    /// `MPI_Win_unlock_all(win)`, reported once MPI has released the locks.
    WinUnlockAll { win: u32 },
    /// A flush (`how`, of `target` for the forms that name one) or
    /// `MPI_Win_sync`: completes at once, recorded for the order it gives.
    WinFlush {
        win: u32,
        how: FlushKind,
        target: i32,
    },
    /// The blocks of the rank's next collective that go to or come from
    /// each peer, for the collectives whose counts and datatypes concern
    /// each pair of ranks (`MPI_Alltoallv`, `MPI_Alltoallw`, the
    /// neighbourhood collectives, blocking or not): `sends` the blocks it
    /// sends, `recvs` those it receives. A send block of rank `i` to `j`
    /// is received by `j`'s block from `i` with the same `key`. Not a call
    /// of its own: it precedes the collective it describes (that one only),
    /// and expects no answer.
    Exchange {
        sends: Vec<Block>,
        recvs: Vec<Block>,
    },
    /// A hash of the data the rank's next call sends (a point-to-point
    /// send's buffer, a collective's contribution), reported only when the
    /// scheduler asks for it ([`crate::env::HASH_DATA`]). The scheduler
    /// does not model it: it compares whole runs with it, so that a run
    /// that differs from another only in the order of a row of wildcard
    /// receives is known to send the same data. Not a call of its own: it
    /// precedes the call it describes, and expects no answer.
    Data { hash: u64 },
}

/// One block of an [`Op::Exchange`]: `count` elements of `dtype` (named as
/// in [`Op::Args`]) to or from the communicator's rank `peer`; `key` tells
/// apart the blocks between the same two ranks (their order among them, or
/// the direction of a Cartesian neighbour).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub peer: i32,
    pub key: u32,
    pub dtype: String,
    pub count: i64,
}

impl Op {
    /// The communicator and window ids the call names (one id space), to
    /// rename (a recorded run's ranks name the communicators and windows
    /// they make themselves, see [`Up::Named`](crate::Up::Named)).
    pub fn ids_mut(&mut self) -> Vec<&mut u32> {
        match self {
            Op::Send { comm, .. }
            | Op::Recv { comm, .. }
            | Op::Probe { comm, .. }
            | Op::Coll { comm, .. }
            | Op::Icoll { comm, .. }
            | Op::CommDup { comm }
            | Op::CommSplit { comm, .. }
            | Op::CommSplitAs { comm, .. }
            | Op::CommCreate { comm, .. }
            | Op::CommFree { comm }
            | Op::Mprobe { comm, .. }
            | Op::CommIdup { comm, .. }
            | Op::CommCreateGroup { comm, .. }
            | Op::IntercommMerge { comm, .. }
            | Op::WinCreate { comm, .. } => vec![comm],
            Op::WinFree { win }
            | Op::WinFence { win }
            | Op::Rma { win, .. }
            | Op::WinPost { win, .. }
            | Op::WinStart { win, .. }
            | Op::WinComplete { win }
            | Op::WinWait { win, .. }
            | Op::WinLock { win, .. }
            | Op::WinUnlock { win, .. }
            | Op::WinLockAll { win }
            | Op::WinUnlockAll { win }
            | Op::WinFlush { win, .. } => vec![win],
            Op::IntercommCreate {
                local_comm,
                peer_comm,
                ..
            } => vec![local_comm, peer_comm],
            _ => Vec::new(),
        }
    }

    /// Whether the rank waits for a [`Down`](crate::Down) answer after sending
    /// this call. `zero_buffer` says whether standard sends are synchronous in
    /// this run.
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
            Op::Rma { .. }
            | Op::WinPost { .. }
            | Op::WinComplete { .. }
            | Op::WinUnlock { .. }
            | Op::WinUnlockAll { .. }
            | Op::WinFlush { .. } => false,
            Op::Exchange { .. } | Op::Data { .. } => false,
            _ => true,
        }
    }
}

/// What kind of MPI object a handle-making call makes, for
/// [`Up::Leaked`](crate::Up::Leaked) reports.
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

#[cfg(test)]
mod tests {
    use super::*;

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
