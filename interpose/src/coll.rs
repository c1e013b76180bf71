//! Collectives and communicator constructors. A collective is reported, and
//! once the scheduler says Go it runs as its nonblocking PMPI form, polled
//! with `sched_yield`. A constructor is reported, the scheduler answers with
//! the new communicator's id, and then the real call runs and the new handle
//! is recorded under that id (the constructors modelled as a split of their
//! parent are in `topo.rs`; `MPI_Comm_idup`, a nonblocking one, in
//! `icoll.rs`). `MPI_Comm_create_group` is reported with its group's
//! members, which alone call it.

use std::os::raw::{c_int, c_void};

use fib_wire::{CollKind, Down, Op, UNDEFINED};
use mpi_sys::*;

use crate::conn::fatal;
use crate::handle::{bits, same};
use crate::held::lib;
use crate::owned::{self, Role};
use crate::sig::Side;

/// Reports a collective, waits for Go, then starts it with `start` and polls
/// the request `start` fills in.
unsafe fn coll(
    kind: CollKind,
    comm: MPI_Comm,
    root: c_int,
    start: impl FnOnce(*mut MPI_Request) -> c_int,
) -> c_int {
    coll_or_blocking(kind, comm, root, start, None)
}

/// [`coll`], but on an intercommunicator runs the blocking form `blocking`
/// instead once the scheduler says Go (every member of both groups is in
/// the call then): MPICH 4.0's nonblocking broadcast on an
/// intercommunicator delivers nothing.
unsafe fn coll_or_blocking(
    kind: CollKind,
    comm: MPI_Comm,
    root: c_int,
    start: impl FnOnce(*mut MPI_Request) -> c_int,
    blocking: Option<&dyn Fn() -> c_int>,
) -> c_int {
    coll_blocking_when(kind, comm, root, start, blocking, false)
}

/// [`coll_or_blocking`], which with `always` runs the blocking form on any
/// communicator.
unsafe fn coll_blocking_when(
    kind: CollKind,
    comm: MPI_Comm,
    root: c_int,
    start: impl FnOnce(*mut MPI_Request) -> c_int,
    blocking: Option<&dyn Fn() -> c_int>,
    always: bool,
) -> c_int {
    let mut l = lib();
    crate::check::coll(&mut l, comm, kind.has_root().then_some(root));
    let cid = l.comm_id(comm);
    crate::threads::uses(
        &[crate::threads::Shared::Collectives(cid)],
        crate::site::current(),
    );
    let root = if kind.has_root() {
        crate::values::root_to_wire(root)
    } else {
        0
    };
    // A recorded run's collective completes in MPI, and the scheduler's
    // engine catches up with it afterwards.
    let recorded = l.record.is_some();
    l.event_settled(
        Op::Coll {
            kind,
            comm: cid,
            root,
        },
        recorded,
    );
    if recorded {
        // Sent before the collective: a rank the others' failure kills
        // inside it still has it reported.
        l.conn.flush();
    } else {
        l.wait_go();
    }
    if let Some(blocking) = blocking {
        if always || crate::values::is_inter(comm) {
            return blocking();
        }
    }
    let mut req = RSMPI_REQUEST_NULL;
    let rc = start(&mut req);
    l.spin_request(req);
    rc
}

/// A blocking collective's buffers are MPI's while the call runs: another
/// thread's access that nothing orders with the call races with MPI's use
/// of them (`memory::blocking`, which does nothing while the rank has one
/// thread).
unsafe fn threads_watch(
    call: &'static str,
    comm: MPI_Comm,
    root: c_int,
    bufs: impl FnOnce(usize, usize, Role) -> Vec<crate::memory::Buf>,
) {
    if crate::memory::threads_watched() {
        let (n, me, role) = owned::group(comm, root);
        if role != Role::Idle {
            crate::memory::blocking(call, crate::site::for_call(), &bufs(n, me, role));
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Barrier(comm: MPI_Comm) -> c_int {
    // A barrier the driver deleted (to prove its group irrelevant) is not
    // there at all: no event, no synchronisation.
    if crate::site::elided() {
        return MPI_SUCCESS as c_int;
    }
    coll_or_blocking(
        CollKind::Barrier,
        comm,
        0,
        |r| PMPI_Ibarrier(comm, r),
        Some(&|| PMPI_Barrier(comm)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Bcast(
    buffer: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::bcast("MPI_Bcast", buffer, count, datatype, root, comm);
    crate::sig::coll(count, datatype, None);
    crate::digest::broadcast(buffer, count, datatype, root, comm);
    threads_watch("MPI_Bcast", comm, root, |_, _, role| {
        owned::of::bcast(buffer, count, datatype, role)
    });
    coll_or_blocking(
        CollKind::Bcast,
        comm,
        root,
        |r| PMPI_Ibcast(buffer, count, datatype, root, comm, r),
        Some(&|| PMPI_Bcast(buffer, count, datatype, root, comm)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, root, comm);
    crate::sig::coll(count, datatype, Some(op));
    crate::digest::contribution(sendbuf, recvbuf, count, datatype, comm);
    threads_watch("MPI_Reduce", comm, root, |_, _, role| {
        owned::of::reduce(sendbuf, recvbuf, count, datatype, role)
    });
    coll_or_blocking(
        CollKind::Reduce,
        comm,
        root,
        |r| PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, r),
        Some(&|| PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Allreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, comm);
    crate::sig::coll(count, datatype, Some(op));
    crate::digest::contribution(sendbuf, recvbuf, count, datatype, comm);
    threads_watch("MPI_Allreduce", comm, 0, |_, _, _| {
        owned::of::reduction(sendbuf, recvbuf, count, datatype)
    });
    coll_or_blocking(
        CollKind::Allreduce,
        comm,
        0,
        |r| PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r),
        Some(&|| PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Gather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::rooted(
        "MPI_Gather",
        true,
        sendbuf,
        sendcount,
        sendtype,
        recvbuf,
        recvcount,
        recvtype,
        root,
        comm,
    );
    crate::sig::rooted(
        comm,
        root,
        Side::one(recvcount, recvtype),
        Side::one(sendcount, sendtype),
    );
    crate::digest::gathered(sendbuf, sendcount, sendtype, comm);
    threads_watch("MPI_Gather", comm, root, |n, _, role| {
        owned::of::gather(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n, role,
        )
    });
    coll_or_blocking(
        CollKind::Gather,
        comm,
        root,
        |r| {
            PMPI_Igather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r,
            )
        },
        Some(&|| {
            PMPI_Gather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
            )
        }),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Scatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::rooted(
        "MPI_Scatter",
        false,
        sendbuf,
        sendcount,
        sendtype,
        recvbuf,
        recvcount,
        recvtype,
        root,
        comm,
    );
    crate::sig::rooted(
        comm,
        root,
        Side::one(sendcount, sendtype),
        Side::one(recvcount, recvtype),
    );
    threads_watch("MPI_Scatter", comm, root, |n, _, role| {
        owned::of::scatter(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n, role,
        )
    });
    coll_or_blocking(
        CollKind::Scatter,
        comm,
        root,
        |r| {
            PMPI_Iscatter(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r,
            )
        },
        Some(&|| {
            PMPI_Scatter(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
            )
        }),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::allgather(
        "MPI_Allgather",
        false,
        sendbuf,
        sendcount,
        sendtype,
        recvbuf,
        recvcount,
        recvtype,
        comm,
    );
    crate::sig::coll(recvcount, recvtype, None);
    crate::digest::gathered(sendbuf, sendcount, sendtype, comm);
    threads_watch("MPI_Allgather", comm, 0, |n, _, _| {
        owned::of::allgather(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n,
        )
    });
    coll_or_blocking(
        CollKind::Allgather,
        comm,
        0,
        |r| {
            PMPI_Iallgather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
            )
        },
        Some(&|| {
            PMPI_Allgather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
            )
        }),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::allgather(
        "MPI_Alltoall",
        true,
        sendbuf,
        sendcount,
        sendtype,
        recvbuf,
        recvcount,
        recvtype,
        comm,
    );
    crate::sig::coll(recvcount, recvtype, None);
    threads_watch("MPI_Alltoall", comm, 0, |n, _, _| {
        owned::of::alltoall(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n,
        )
    });
    coll_or_blocking(
        CollKind::Alltoall,
        comm,
        0,
        |r| {
            PMPI_Ialltoall(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
            )
        },
        Some(&|| {
            PMPI_Alltoall(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
            )
        }),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Gatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::rooted_v(
        "MPI_Gatherv",
        true,
        (0, sendbuf, sendcount, sendtype),
        (3, recvbuf, recvcounts, displs, recvtype),
        root,
        comm,
    );
    crate::sig::rooted(
        comm,
        root,
        Side::by_rank(recvcounts, recvtype),
        Side::one(sendcount, sendtype),
    );
    threads_watch("MPI_Gatherv", comm, root, |n, _, role| {
        owned::of::gatherv(
            sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, n, role,
        )
    });
    coll(CollKind::Gatherv, comm, root, |r| {
        PMPI_Igatherv(
            sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Scatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::rooted_v(
        "MPI_Scatterv",
        false,
        (4, recvbuf, recvcount, recvtype),
        (0, sendbuf, sendcounts, displs, sendtype),
        root,
        comm,
    );
    crate::sig::rooted(
        comm,
        root,
        Side::by_rank(sendcounts, sendtype),
        Side::one(recvcount, recvtype),
    );
    threads_watch("MPI_Scatterv", comm, root, |n, _, role| {
        owned::of::scatterv(
            sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, n, role,
        )
    });
    coll(CollKind::Scatterv, comm, root, |r| {
        PMPI_Iscatterv(
            sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::allgatherv(
        "MPI_Allgatherv",
        sendbuf,
        sendcount,
        sendtype,
        recvbuf,
        recvcounts,
        displs,
        recvtype,
        comm,
    );
    crate::sig::coll_by_rank(comm, recvcounts, recvtype, None);
    threads_watch("MPI_Allgatherv", comm, 0, |n, _, _| {
        owned::of::allgatherv(
            sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, n,
        )
    });
    coll(CollKind::Allgatherv, comm, 0, |r| {
        PMPI_Iallgatherv(
            sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::alltoallv(
        "MPI_Alltoallv",
        (sendbuf, sendcounts, sdispls, sendtype),
        (recvbuf, recvcounts, rdispls, recvtype),
        comm,
    );
    crate::exchange::all(
        comm,
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(sendcounts),
            types: crate::exchange::Types::One(sendtype),
        },
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(recvcounts),
            types: crate::exchange::Types::One(recvtype),
        },
        is_in_place(sendbuf),
    );
    threads_watch("MPI_Alltoallv", comm, 0, |n, _, _| {
        owned::of::alltoallv(
            sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, n,
        )
    });
    coll(CollKind::Alltoallv, comm, 0, |r| {
        PMPI_Ialltoallv(
            sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, r,
        )
    })
}

/// Whether a buffer argument is `MPI_IN_PLACE`, which is a macro: `(void
/// *) -1` in MPICH, `(void *) 1` in Open MPI, neither of them an address
/// any buffer can have.
pub(crate) fn is_in_place(buf: *const c_void) -> bool {
    matches!(buf as usize, 1 | usize::MAX)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::alltoallw(
        "MPI_Alltoallw",
        (sendbuf, sendcounts, sdispls, sendtypes),
        (recvbuf, recvcounts, rdispls, recvtypes),
        comm,
    );
    crate::exchange::all(
        comm,
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(sendcounts),
            types: crate::exchange::Types::Each(sendtypes),
        },
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(recvcounts),
            types: crate::exchange::Types::Each(recvtypes),
        },
        is_in_place(sendbuf),
    );
    threads_watch("MPI_Alltoallw", comm, 0, |n, _, _| {
        owned::of::alltoallw(
            sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, n,
        )
    });
    // MPICH 4.0's `MPI_Ialltoallw` with `MPI_IN_PLACE` leaves most blocks
    // unexchanged (MPICH's test `alltoallw2` fails with it natively): in
    // place, the blocking form runs once every member is in the call.
    let in_place = is_in_place(sendbuf);
    let blocking = || {
        PMPI_Alltoallw(
            sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
        )
    };
    coll_blocking_when(
        CollKind::Alltoallw,
        comm,
        0,
        |r| {
            PMPI_Ialltoallw(
                sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                comm, r,
            )
        },
        in_place.then_some(&blocking as &dyn Fn() -> c_int),
        in_place,
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Scan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::allreduce("MPI_Scan", sendbuf, recvbuf, count, datatype, comm);
    crate::sig::coll(count, datatype, Some(op));
    crate::digest::contribution(sendbuf, recvbuf, count, datatype, comm);
    threads_watch("MPI_Scan", comm, 0, |_, _, _| {
        owned::of::reduction(sendbuf, recvbuf, count, datatype)
    });
    coll(CollKind::Scan, comm, 0, |r| {
        PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, r)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Exscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::allreduce("MPI_Exscan", sendbuf, recvbuf, count, datatype, comm);
    crate::sig::coll(count, datatype, Some(op));
    crate::digest::contribution(sendbuf, recvbuf, count, datatype, comm);
    threads_watch("MPI_Exscan", comm, 0, |_, _, _| {
        owned::of::reduction(sendbuf, recvbuf, count, datatype)
    });
    coll(CollKind::Exscan, comm, 0, |r| {
        PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, r)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_scatter(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::reduce_scatter(
        "MPI_Reduce_scatter",
        sendbuf,
        recvbuf,
        Ok(recvcounts),
        datatype,
        comm,
    );
    crate::sig::coll_by_rank(comm, recvcounts, datatype, Some(op));
    threads_watch("MPI_Reduce_scatter", comm, 0, |n, me, _| {
        owned::of::reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, n, me)
    });
    coll(CollKind::ReduceScatter, comm, 0, |r| {
        PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_scatter_block(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
) -> c_int {
    crate::extents::coll::reduce_scatter(
        "MPI_Reduce_scatter_block",
        sendbuf,
        recvbuf,
        Err(recvcount),
        datatype,
        comm,
    );
    crate::sig::coll(recvcount, datatype, Some(op));
    threads_watch("MPI_Reduce_scatter_block", comm, 0, |n, _, _| {
        owned::of::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, n)
    });
    coll(CollKind::ReduceScatterBlock, comm, 0, |r| {
        PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, r)
    })
}

// The neighbourhood collectives: matched as collectives over the whole
// communicator (every member calls them in its collective order), and run
// as their nonblocking form once the scheduler says Go. Their counts and
// datatypes concern each rank's neighbours: they are reported by peer
// (`exchange.rs`), each block compared with its neighbour's.

#[no_mangle]
pub unsafe extern "C" fn MPI_Neighbor_allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::exchange::neighbourhood(
        comm,
        crate::exchange::Side {
            counts: crate::exchange::Counts::One(sendcount),
            types: crate::exchange::Types::One(sendtype),
        },
        crate::exchange::Side {
            counts: crate::exchange::Counts::One(recvcount),
            types: crate::exchange::Types::One(recvtype),
        },
    );
    threads_watch("MPI_Neighbor_allgather", comm, 0, |_, _, _| {
        owned::neighbourhood(
            comm,
            owned::Blocks::Same(sendbuf, sendcount, sendtype),
            owned::Blocks::Each(recvbuf, recvcount, recvtype),
        )
    });
    coll(CollKind::NeighborAllgather, comm, 0, |r| {
        PMPI_Ineighbor_allgather(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Neighbor_allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::exchange::neighbourhood(
        comm,
        crate::exchange::Side {
            counts: crate::exchange::Counts::One(sendcount),
            types: crate::exchange::Types::One(sendtype),
        },
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(recvcounts),
            types: crate::exchange::Types::One(recvtype),
        },
    );
    threads_watch("MPI_Neighbor_allgatherv", comm, 0, |_, _, _| {
        owned::neighbourhood(
            comm,
            owned::Blocks::Same(sendbuf, sendcount, sendtype),
            owned::Blocks::V(recvbuf, recvcounts, displs, recvtype),
        )
    });
    coll(CollKind::NeighborAllgatherv, comm, 0, |r| {
        PMPI_Ineighbor_allgatherv(
            sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Neighbor_alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::exchange::neighbourhood(
        comm,
        crate::exchange::Side {
            counts: crate::exchange::Counts::One(sendcount),
            types: crate::exchange::Types::One(sendtype),
        },
        crate::exchange::Side {
            counts: crate::exchange::Counts::One(recvcount),
            types: crate::exchange::Types::One(recvtype),
        },
    );
    threads_watch("MPI_Neighbor_alltoall", comm, 0, |_, _, _| {
        owned::neighbourhood(
            comm,
            owned::Blocks::Each(sendbuf, sendcount, sendtype),
            owned::Blocks::Each(recvbuf, recvcount, recvtype),
        )
    });
    coll(CollKind::NeighborAlltoall, comm, 0, |r| {
        PMPI_Ineighbor_alltoall(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Neighbor_alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::exchange::neighbourhood(
        comm,
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(sendcounts),
            types: crate::exchange::Types::One(sendtype),
        },
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(recvcounts),
            types: crate::exchange::Types::One(recvtype),
        },
    );
    threads_watch("MPI_Neighbor_alltoallv", comm, 0, |_, _, _| {
        owned::neighbourhood(
            comm,
            owned::Blocks::V(sendbuf, sendcounts, sdispls, sendtype),
            owned::Blocks::V(recvbuf, recvcounts, rdispls, recvtype),
        )
    });
    coll(CollKind::NeighborAlltoallv, comm, 0, |r| {
        PMPI_Ineighbor_alltoallv(
            sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, r,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Neighbor_alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const MPI_Aint,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const MPI_Aint,
    recvtypes: *const MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    crate::exchange::neighbourhood(
        comm,
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(sendcounts),
            types: crate::exchange::Types::Each(sendtypes),
        },
        crate::exchange::Side {
            counts: crate::exchange::Counts::Each(recvcounts),
            types: crate::exchange::Types::Each(recvtypes),
        },
    );
    threads_watch("MPI_Neighbor_alltoallw", comm, 0, |_, _, _| {
        owned::neighbourhood(
            comm,
            owned::Blocks::W(sendbuf, sendcounts, sdispls, sendtypes),
            owned::Blocks::W(recvbuf, recvcounts, rdispls, recvtypes),
        )
    });
    coll(CollKind::NeighborAlltoallw, comm, 0, |r| {
        PMPI_Ineighbor_alltoallw(
            sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
            r,
        )
    })
}

/// In a recorded run, a barrier of the library's over `comm`, polled so that
/// a rank waiting there long says so ([`Lib::spin`]): it comes before the
/// calls MPI makes wait without a word for every rank of `comm` (window
/// fences and frees over their private communicators, window creations,
/// communicator constructors), so that a rank left waiting in one is a
/// deadlock named at once rather than a time-out. Every rank of `comm`
/// makes the same call, so the barriers match in the order of the calls.
pub(crate) unsafe fn polled_barrier(l: &mut crate::state::Lib, comm: MPI_Comm) {
    let mut req = RSMPI_REQUEST_NULL;
    PMPI_Ibarrier(comm, &mut req);
    l.spin(|| {
        let mut flag: c_int = 0;
        PMPI_Test(&mut req, &mut flag, RSMPI_STATUS_IGNORE);
        flag != 0
    });
}

/// Reports a communicator constructor, waits for the new id, runs the real
/// constructor with `make` and records the handle it yields. `over`: the
/// communicator every rank of which makes the call (`MPI_COMM_NULL` when
/// only some do, as for `MPI_Comm_create_group`), which a recorded run's
/// rank passes a [`polled_barrier`] over first.
pub(crate) unsafe fn construct(
    op: Op,
    over: MPI_Comm,
    newcomm: *mut MPI_Comm,
    make: impl FnOnce() -> c_int,
) -> c_int {
    let mut l = lib();
    let name = match &op {
        Op::CommDup { .. } => "MPI_Comm_dup",
        Op::CommSplit { .. } => "MPI_Comm_split",
        Op::CommSplitAs { how, .. } => how.mpi_name(),
        Op::CommCreateGroup { .. } => "MPI_Comm_create_group",
        Op::IntercommCreate { .. } => "MPI_Intercomm_create",
        Op::IntercommMerge { .. } => "MPI_Intercomm_merge",
        _ => "MPI_Comm_create",
    };
    // A recorded run's rank makes the communicator in MPI and names it
    // itself; the scheduler renames it once its engine has matched the
    // constructor.
    if l.record.is_some() {
        l.event_settled(op, true);
        // Sent before the constructor: a rank the others' failure kills
        // inside it still has it reported.
        l.conn.flush();
        if !same(over, RSMPI_COMM_NULL) {
            polled_barrier(&mut l, over);
        }
        let rc = make();
        let comm = if same(*newcomm, RSMPI_COMM_NULL) {
            fib_wire::NO_COMM
        } else {
            let Some(rec) = l.record.as_mut() else {
                unreachable!("a recorded run")
            };
            let comm = rec.name_comm();
            l.comms.insert(bits(*newcomm), comm);
            comm
        };
        l.push(fib_wire::Up::Named { comm });
        return rc;
    }
    l.event(op);
    let id = match l.wait_down() {
        Down::NewComm { id } => id,
        d => fatal(&format!("protocol error: expected NewComm, got {d:?}")),
    };
    let rc = make();
    let is_null = same(*newcomm, RSMPI_COMM_NULL);
    match (id, is_null) {
        (-1, true) => {}
        (id, false) if id >= 0 => {
            l.comms.insert(bits(*newcomm), id as u32);
        }
        (id, _) => fatal(&format!(
            "protocol error: the scheduler gave communicator id {id} but {name} returned {}",
            if is_null {
                "MPI_COMM_NULL"
            } else {
                "a communicator"
            }
        )),
    }
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_dup(comm: MPI_Comm, newcomm: *mut MPI_Comm) -> c_int {
    let cid = lib().comm_id(comm);
    construct(Op::CommDup { comm: cid }, comm, newcomm, || {
        PMPI_Comm_dup(comm, newcomm)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_split(
    comm: MPI_Comm,
    color: c_int,
    key: c_int,
    newcomm: *mut MPI_Comm,
) -> c_int {
    let cid = lib().comm_id(comm);
    let wire_color = if color == RSMPI_UNDEFINED {
        UNDEFINED
    } else {
        color
    };
    construct(
        Op::CommSplit {
            comm: cid,
            color: wire_color,
            key,
        },
        comm,
        newcomm,
        || PMPI_Comm_split(comm, color, key, newcomm),
    )
}

/// The members of `group` as world ranks, in group order.
pub(crate) unsafe fn world_members(group: MPI_Group) -> Vec<u32> {
    if same(group, RSMPI_GROUP_EMPTY) {
        return Vec::new();
    }
    let mut n: c_int = 0;
    PMPI_Group_size(group, &mut n);
    let ranks: Vec<c_int> = (0..n).collect();
    let mut out = vec![0 as c_int; n.max(0) as usize];
    let mut world = RSMPI_GROUP_NULL;
    PMPI_Comm_group(RSMPI_COMM_WORLD, &mut world);
    PMPI_Group_translate_ranks(group, n, ranks.as_ptr(), world, out.as_mut_ptr());
    PMPI_Group_free(&mut world);
    out.into_iter().map(|r| r as u32).collect()
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_create(
    comm: MPI_Comm,
    group: MPI_Group,
    newcomm: *mut MPI_Comm,
) -> c_int {
    let cid = lib().comm_id(comm);
    let members = world_members(group);
    construct(Op::CommCreate { comm: cid, members }, comm, newcomm, || {
        PMPI_Comm_create(comm, group, newcomm)
    })
}

/// Collective over the members of `group` only: reported with them, matched
/// among them alone. A rank that passes `MPI_GROUP_EMPTY` gets
/// `MPI_COMM_NULL` from MPI at once, with nobody else involved.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_create_group(
    comm: MPI_Comm,
    group: MPI_Group,
    tag: c_int,
    newcomm: *mut MPI_Comm,
) -> c_int {
    if same(group, RSMPI_GROUP_EMPTY) {
        return PMPI_Comm_create_group(comm, group, tag, newcomm);
    }
    let cid = lib().comm_id(comm);
    let members = world_members(group);
    construct(
        Op::CommCreateGroup {
            comm: cid,
            members,
            tag,
        },
        RSMPI_COMM_NULL,
        newcomm,
        || PMPI_Comm_create_group(comm, group, tag, newcomm),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_free(comm: *mut MPI_Comm) -> c_int {
    let mut l = lib();
    let key = bits(*comm);
    let cid = l.comm_id(*comm);
    l.event(Op::CommFree { comm: cid });
    let rc = PMPI_Comm_free(comm);
    l.comms.remove(&key);
    rc
}
