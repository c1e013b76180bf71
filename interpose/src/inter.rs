//! Intercommunicators: `MPI_Intercomm_create` and `MPI_Intercomm_merge`,
//! reported as [`fib_wire::Op::IntercommCreate`] and
//! [`fib_wire::Op::IntercommMerge`] and run for real once the scheduler has
//! answered with the new communicator's id (`coll::construct`). The
//! scheduler orders a merged communicator's groups itself (the group that
//! gave `high` false first; on a tie, the group holding the lower world
//! rank); after the real merge each rank checks that MPI made that order,
//! and stops the run if not. Point-to-point calls and collectives on an
//! intercommunicator go through the usual wrappers: their ranks name the
//! remote group, and the scheduler translates them.

use std::os::raw::c_int;

use fib_wire::{Op, COMM_WORLD};
use mpi_sys::*;

use crate::coll::{construct, world_members};
use crate::conn::fatal;
use crate::handle::bits;
use crate::held::lib;
use crate::values::is_inter;

/// Stops the run with `call` reported as unsupported when `comm` is an
/// intercommunicator: the constructors fib models only over
/// intra-communicators.
pub(crate) unsafe fn refuse_inter(comm: MPI_Comm, call: &str) {
    if !crate::handle::same(comm, RSMPI_COMM_NULL) && is_inter(comm) {
        lib().unsupported(&format!("{call} on an intercommunicator"));
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Intercomm_create(
    local_comm: MPI_Comm,
    local_leader: c_int,
    peer_comm: MPI_Comm,
    remote_leader: c_int,
    tag: c_int,
    newintercomm: *mut MPI_Comm,
) -> c_int {
    let op = {
        let mut l = lib();
        let local = l.comm_id(local_comm);
        let mut me: c_int = 0;
        PMPI_Comm_rank(local_comm, &mut me);
        // The peer communicator matters at the local leader only; others
        // may pass any handle.
        let peer = if me == local_leader {
            l.comm_id(peer_comm)
        } else {
            l.comms.get(&bits(peer_comm)).copied().unwrap_or(COMM_WORLD)
        };
        Op::IntercommCreate {
            local_comm: local,
            local_leader,
            peer_comm: peer,
            remote_leader,
            tag,
        }
    };
    construct(op, local_comm, newintercomm, || {
        PMPI_Intercomm_create(
            local_comm,
            local_leader,
            peer_comm,
            remote_leader,
            tag,
            newintercomm,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Intercomm_merge(
    intercomm: MPI_Comm,
    high: c_int,
    newintracomm: *mut MPI_Comm,
) -> c_int {
    let cid = lib().comm_id(intercomm);
    if !is_inter(intercomm) {
        crate::check::invalid(
            &mut lib(),
            "MPI_Intercomm_merge needs an intercommunicator".into(),
        );
    }
    let op = Op::IntercommMerge {
        comm: cid,
        high: high != 0,
    };
    let rc = construct(op, intercomm, newintracomm, || {
        PMPI_Intercomm_merge(intercomm, high, newintracomm)
    });
    if rc == MPI_SUCCESS as c_int {
        check_merge(intercomm, high != 0, *newintracomm);
    }
    rc
}

/// The world ranks of `comm`'s members, in rank order.
unsafe fn world_of(comm: MPI_Comm, remote: bool) -> Vec<u32> {
    let mut group = RSMPI_GROUP_NULL;
    if remote {
        PMPI_Comm_remote_group(comm, &mut group);
    } else {
        PMPI_Comm_group(comm, &mut group);
    }
    let out = world_members(group);
    PMPI_Group_free(&mut group);
    out
}

/// Stops the run unless `made`, merged from `intercomm` with this rank's
/// `high`, orders its members as the scheduler did: the group that gave
/// `high` false first, and on a tie the group holding the lower world
/// rank. Every member of both groups merged together, so every one of
/// them takes part in the exchange of `high` values here.
unsafe fn check_merge(intercomm: MPI_Comm, high: bool, made: MPI_Comm) {
    let local = world_of(intercomm, false);
    let remote = world_of(intercomm, true);
    let order = world_of(made, false);
    let mine: c_int = high as c_int;
    let mut highs = vec![0 as c_int; order.len()];
    let mut req = RSMPI_REQUEST_NULL;
    PMPI_Iallgather(
        (&mine as *const c_int).cast(),
        1,
        RSMPI_INT32_T,
        highs.as_mut_ptr().cast(),
        1,
        RSMPI_INT32_T,
        made,
        &mut req,
    );
    lib().spin_request(req);
    let remote_high = order
        .iter()
        .position(|&w| Some(&w) == remote.first())
        .map(|p| highs[p] != 0);
    let local_first = match remote_high {
        Some(rh) if rh != high => !high,
        _ => local.iter().min() < remote.iter().min(),
    };
    let expected: Vec<u32> = if local_first {
        local.iter().chain(&remote).copied().collect()
    } else {
        remote.iter().chain(&local).copied().collect()
    };
    if order != expected {
        fatal(&format!(
            "MPI_Intercomm_merge made a communicator other than the one fib modelled \
             (world ranks {order:?}, fib expected {expected:?})"
        ));
    }
}
