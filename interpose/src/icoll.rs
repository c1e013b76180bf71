//! Nonblocking collectives (`MPI_Ibarrier`, `MPI_Ibcast`, ...,
//! `MPI_Ineighbor_alltoall`, ..., and `MPI_Comm_idup`). Each is
//! started in MPI when the program calls it, like a nonblocking send, and
//! reported with the request handed to the program; the scheduler matches
//! it in its communicator's collective order and answers a wait or test on
//! the request once it has matched on every rank, when the library
//! completes the real request (`state::Kind::Coll`).

use std::os::raw::{c_int, c_void};

use fib_wire::{CollKind, Op};
use mpi_sys::*;

use crate::held::lib;
use crate::memory::Buf;
use crate::owned::{self, Role};
use crate::sig::Side;
use crate::state::{Kind, Real};

/// `MPI_Comm_idup` (`info`: `MPI_Comm_idup_with_info`): started in MPI at
/// once, like the other nonblocking collectives, and reported with its
/// request; the scheduler names the new communicator ahead of the answer
/// of the wait or test that completes the request, and the library records
/// the handle MPI wrote to `newcomm` under that id then
/// ([`crate::state::Lib::complete`]).
unsafe fn idup(
    comm: MPI_Comm,
    info: bool,
    newcomm: *mut MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    let mut l = lib();
    crate::check::request_out(&mut l, request);
    let cid = l.comm_id(comm);
    crate::threads::uses(
        &[crate::threads::Shared::Collectives(cid)],
        crate::site::current(),
    );
    let mut real = RSMPI_REQUEST_NULL;
    let rc = PMPI_Comm_idup(comm, newcomm, &mut real);
    let (id, handle) = l.new_req(Kind::Coll(Real::new(real)));
    l.idups.insert(id, newcomm);
    l.event(Op::CommIdup {
        comm: cid,
        req: id,
        info,
    });
    *request = handle;
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_idup(
    comm: MPI_Comm,
    newcomm: *mut MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    idup(comm, false, newcomm, request)
}

/// Run as `MPI_Comm_idup`: the info object's hints are not passed on (Open
/// MPI 4.1 has no `MPI_Comm_idup_with_info`, and MPI may ignore hints).
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_idup_with_info(
    comm: MPI_Comm,
    _info: MPI_Info,
    newcomm: *mut MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    idup(comm, true, newcomm, request)
}

/// Starts the nonblocking collective with `start`, registers its request
/// and reports the call. When the program reports its memory accesses,
/// MPI owns the buffers `bufs` gives (this rank's, for `root`; see
/// `owned`) until the request completes. The neighbourhood collectives
/// give none: their buffers are not watched.
unsafe fn icoll(
    kind: CollKind,
    comm: MPI_Comm,
    root: c_int,
    request: *mut MPI_Request,
    bufs: impl FnOnce(usize, usize, Role) -> Vec<Buf>,
    start: impl FnOnce(*mut MPI_Request) -> c_int,
) -> c_int {
    let mut l = lib();
    crate::check::coll(&mut l, comm, kind.has_root().then_some(root));
    crate::check::request_out(&mut l, request);
    let cid = l.comm_id(comm);
    let root = if kind.has_root() {
        crate::values::root_to_wire(root)
    } else {
        0
    };
    let mut real = RSMPI_REQUEST_NULL;
    let rc = start(&mut real);
    let (id, handle) = l.new_req(Kind::Coll(Real::new(real)));
    if crate::memory::instrumented() {
        let (n, me, role) = owned::group(comm, root);
        if role != Role::Idle {
            for m in crate::memory::own(
                Some(id),
                kind.mpi_name(),
                crate::site::for_call(),
                &bufs(n, me, role),
            ) {
                l.push(m);
            }
        }
    }
    l.event(Op::Icoll {
        kind,
        comm: cid,
        root,
        req: id,
    });
    *request = handle;
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ibarrier(comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
    // An Ibarrier the driver deleted (to prove its group irrelevant) is not
    // there at all: its request completes at once, as a null request does.
    if crate::site::elided() {
        *request = RSMPI_REQUEST_NULL;
        return MPI_SUCCESS as c_int;
    }
    icoll(
        CollKind::Ibarrier,
        comm,
        0,
        request,
        |_, _, _| Vec::new(),
        |r| PMPI_Ibarrier(comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ibcast(
    buffer: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::bcast("MPI_Ibcast", buffer, count, datatype, root, comm);
    crate::sig::coll(count, datatype, None);
    icoll(
        CollKind::Ibcast,
        comm,
        root,
        request,
        |_, _, role| owned::of::bcast(buffer, count, datatype, role),
        |r| PMPI_Ibcast(buffer, count, datatype, root, comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ireduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, root, comm);
    crate::sig::coll(count, datatype, Some(op));
    icoll(
        CollKind::Ireduce,
        comm,
        root,
        request,
        |_, _, role| owned::of::reduce(sendbuf, recvbuf, count, datatype, role),
        |r| PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iallreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, comm);
    crate::sig::coll(count, datatype, Some(op));
    crate::digest::contribution(sendbuf, recvbuf, count, datatype, comm);
    icoll(
        CollKind::Iallreduce,
        comm,
        0,
        request,
        |_, _, _| owned::of::reduction(sendbuf, recvbuf, count, datatype),
        |r| PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Igather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::rooted(
        "MPI_Igather",
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
    icoll(
        CollKind::Igather,
        comm,
        root,
        request,
        |n, _, role| {
            owned::of::gather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n, role,
            )
        },
        |r| {
            PMPI_Igather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iscatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::rooted(
        "MPI_Iscatter",
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
    icoll(
        CollKind::Iscatter,
        comm,
        root,
        request,
        |n, _, role| {
            owned::of::scatter(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n, role,
            )
        },
        |r| {
            PMPI_Iscatter(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iallgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::allgather(
        "MPI_Iallgather",
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
    icoll(
        CollKind::Iallgather,
        comm,
        0,
        request,
        |n, _, _| {
            owned::of::allgather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n,
            )
        },
        |r| {
            PMPI_Iallgather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ialltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::allgather(
        "MPI_Ialltoall",
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
    icoll(
        CollKind::Ialltoall,
        comm,
        0,
        request,
        |n, _, _| {
            owned::of::alltoall(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n,
            )
        },
        |r| {
            PMPI_Ialltoall(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Igatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::rooted_v(
        "MPI_Igatherv",
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
    icoll(
        CollKind::Igatherv,
        comm,
        root,
        request,
        |n, _, role| {
            owned::of::gatherv(
                sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, n, role,
            )
        },
        |r| {
            PMPI_Igatherv(
                sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iscatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::rooted_v(
        "MPI_Iscatterv",
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
    icoll(
        CollKind::Iscatterv,
        comm,
        root,
        request,
        |n, _, role| {
            owned::of::scatterv(
                sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, n, role,
            )
        },
        |r| {
            PMPI_Iscatterv(
                sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iallgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::allgatherv(
        "MPI_Iallgatherv",
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
    icoll(
        CollKind::Iallgatherv,
        comm,
        0,
        request,
        |n, _, _| {
            owned::of::allgatherv(
                sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, n,
            )
        },
        |r| {
            PMPI_Iallgatherv(
                sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ialltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::alltoallv(
        "MPI_Ialltoallv",
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
        crate::coll::is_in_place(sendbuf),
    );
    icoll(
        CollKind::Ialltoallv,
        comm,
        0,
        request,
        |n, _, _| {
            owned::of::alltoallv(
                sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, n,
            )
        },
        |r| {
            PMPI_Ialltoallv(
                sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ialltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::alltoallw(
        "MPI_Ialltoallw",
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
        crate::coll::is_in_place(sendbuf),
    );
    icoll(
        CollKind::Ialltoallw,
        comm,
        0,
        request,
        |n, _, _| {
            owned::of::alltoallw(
                sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, n,
            )
        },
        |r| {
            PMPI_Ialltoallw(
                sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::allreduce("MPI_Iscan", sendbuf, recvbuf, count, datatype, comm);
    crate::sig::coll(count, datatype, Some(op));
    icoll(
        CollKind::Iscan,
        comm,
        0,
        request,
        |_, _, _| owned::of::reduction(sendbuf, recvbuf, count, datatype),
        |r| PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Iexscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::allreduce("MPI_Iexscan", sendbuf, recvbuf, count, datatype, comm);
    crate::sig::coll(count, datatype, Some(op));
    icoll(
        CollKind::Iexscan,
        comm,
        0,
        request,
        |_, _, _| owned::of::reduction(sendbuf, recvbuf, count, datatype),
        |r| PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ireduce_scatter(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::reduce_scatter(
        "MPI_Ireduce_scatter",
        sendbuf,
        recvbuf,
        Ok(recvcounts),
        datatype,
        comm,
    );
    crate::sig::coll_by_rank(comm, recvcounts, datatype, Some(op));
    icoll(
        CollKind::IreduceScatter,
        comm,
        0,
        request,
        |n, me, _| owned::of::reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, n, me),
        |r| PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ireduce_scatter_block(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    crate::extents::coll::reduce_scatter(
        "MPI_Ireduce_scatter_block",
        sendbuf,
        recvbuf,
        Err(recvcount),
        datatype,
        comm,
    );
    crate::sig::coll(recvcount, datatype, Some(op));
    icoll(
        CollKind::IreduceScatterBlock,
        comm,
        0,
        request,
        |n, _, _| owned::of::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, n),
        |r| PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, r),
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ineighbor_allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
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
    icoll(
        CollKind::IneighborAllgather,
        comm,
        0,
        request,
        |_, _, _| {
            owned::neighbourhood(
                comm,
                owned::Blocks::Same(sendbuf, sendcount, sendtype),
                owned::Blocks::Each(recvbuf, recvcount, recvtype),
            )
        },
        |r| {
            PMPI_Ineighbor_allgather(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ineighbor_allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
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
    icoll(
        CollKind::IneighborAllgatherv,
        comm,
        0,
        request,
        |_, _, _| {
            owned::neighbourhood(
                comm,
                owned::Blocks::Same(sendbuf, sendcount, sendtype),
                owned::Blocks::V(recvbuf, recvcounts, displs, recvtype),
            )
        },
        |r| {
            PMPI_Ineighbor_allgatherv(
                sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ineighbor_alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
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
    icoll(
        CollKind::IneighborAlltoall,
        comm,
        0,
        request,
        |_, _, _| {
            owned::neighbourhood(
                comm,
                owned::Blocks::Each(sendbuf, sendcount, sendtype),
                owned::Blocks::Each(recvbuf, recvcount, recvtype),
            )
        },
        |r| {
            PMPI_Ineighbor_alltoall(
                sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ineighbor_alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
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
    icoll(
        CollKind::IneighborAlltoallv,
        comm,
        0,
        request,
        |_, _, _| {
            owned::neighbourhood(
                comm,
                owned::Blocks::V(sendbuf, sendcounts, sdispls, sendtype),
                owned::Blocks::V(recvbuf, recvcounts, rdispls, recvtype),
            )
        },
        |r| {
            PMPI_Ineighbor_alltoallv(
                sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, r,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Ineighbor_alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const MPI_Aint,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const MPI_Aint,
    recvtypes: *const MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
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
    icoll(
        CollKind::IneighborAlltoallw,
        comm,
        0,
        request,
        |_, _, _| {
            owned::neighbourhood(
                comm,
                owned::Blocks::W(sendbuf, sendcounts, sdispls, sendtypes),
                owned::Blocks::W(recvbuf, recvcounts, rdispls, recvtypes),
            )
        },
        |r| {
            PMPI_Ineighbor_alltoallw(
                sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                comm, r,
            )
        },
    )
}
