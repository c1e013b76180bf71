//! The communicator constructors fib models as a split of their parent
//! ([`fib_wire::Op::CommSplitAs`]): topologies (`MPI_Cart_create`,
//! `MPI_Cart_sub`, `MPI_Graph_create`, `MPI_Dist_graph_create*`),
//! `MPI_Comm_split_type` and `MPI_Comm_dup_with_info`. Each rank works out
//! the colour and key under which `MPI_Comm_split` would give it the same
//! communicator, reports them, and once the scheduler has answered runs the
//! real constructor; then it checks, with a split of its own, that MPI made
//! the communicator the scheduler modelled (same members, same order), and
//! stops the run if not. Topology constructors run with `reorder` false:
//! MPI may always keep the ranks, and the scheduler must know them.

use std::os::raw::{c_char, c_int};

use fib_wire::{Op, SplitKind, UNDEFINED};
use mpi_sys::*;

use crate::coll::construct;
use crate::conn::fatal;
use crate::handle::same;
use crate::held::lib;

/// Reports the constructor `how` over `comm` as a split with `color` (MPI's
/// `MPI_UNDEFINED` for `MPI_COMM_NULL`) and `key`, runs `make`, and checks
/// the result against `MPI_Comm_split(comm, color, key)`.
unsafe fn split_as(
    how: SplitKind,
    comm: MPI_Comm,
    color: c_int,
    key: c_int,
    newcomm: *mut MPI_Comm,
    make: impl FnOnce() -> c_int,
) -> c_int {
    crate::inter::refuse_inter(comm, how.mpi_name());
    let cid = lib().comm_id(comm);
    let wire_color = if color == RSMPI_UNDEFINED {
        UNDEFINED
    } else {
        color
    };
    let op = Op::CommSplitAs {
        how,
        comm: cid,
        color: wire_color,
        key,
    };
    let rc = construct(op, comm, newcomm, make);
    if rc == MPI_SUCCESS as c_int {
        check_split(how, comm, color, key, *newcomm);
    }
    rc
}

/// Stops the run unless `made` has the members, in the same order, that
/// `MPI_Comm_split(comm, color, key)` gives (or both are `MPI_COMM_NULL`).
/// Every member of `comm` made the constructor together, so every one of
/// them makes this split too.
unsafe fn check_split(how: SplitKind, comm: MPI_Comm, color: c_int, key: c_int, made: MPI_Comm) {
    let mut split = RSMPI_COMM_NULL;
    PMPI_Comm_split(comm, color, key, &mut split);
    let agree = match (same(split, RSMPI_COMM_NULL), same(made, RSMPI_COMM_NULL)) {
        (true, true) => true,
        (false, false) => {
            let mut result: c_int = 0;
            PMPI_Comm_compare(split, made, &mut result);
            result == RSMPI_IDENT || result == RSMPI_CONGRUENT
        }
        _ => false,
    };
    if !same(split, RSMPI_COMM_NULL) {
        PMPI_Comm_free(&mut split);
    }
    if !agree {
        fatal(&format!(
            "{} made a communicator other than the one fib modelled \
             (colour {color}, key {key} of its parent)",
            how.mpi_name()
        ));
    }
}

/// This process's rank in `comm`.
unsafe fn rank_in(comm: MPI_Comm) -> c_int {
    let mut rank: c_int = 0;
    PMPI_Comm_rank(comm, &mut rank);
    rank
}

/// Colour 0 for the first `n` ranks of `comm`, `MPI_UNDEFINED` for the
/// rest, and the rank as key: what a topology constructor that keeps the
/// ranks (`reorder` false) makes.
unsafe fn first_ranks(comm: MPI_Comm, n: c_int) -> (c_int, c_int) {
    let rank = rank_in(comm);
    (if rank < n { 0 } else { RSMPI_UNDEFINED }, rank)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_dup_with_info(
    comm: MPI_Comm,
    info: MPI_Info,
    newcomm: *mut MPI_Comm,
) -> c_int {
    let key = rank_in(comm);
    split_as(SplitKind::DupWithInfo, comm, 0, key, newcomm, || {
        PMPI_Comm_dup_with_info(comm, info, newcomm)
    })
}

/// The colour `MPI_Comm_split_type` gives a rank: one per processor name
/// for `MPI_COMM_TYPE_SHARED` (the ranks of one node share memory), and
/// `None` for split types fib does not model.
unsafe fn split_type_color(split_type: c_int) -> Option<c_int> {
    if split_type == RSMPI_UNDEFINED {
        return Some(RSMPI_UNDEFINED);
    }
    if split_type != RSMPI_COMM_TYPE_SHARED {
        return None;
    }
    let mut name: Vec<c_char> = vec![0; MPI_MAX_PROCESSOR_NAME as usize + 1];
    let mut len: c_int = 0;
    PMPI_Get_processor_name(name.as_mut_ptr(), &mut len);
    // FNV-1a over the name, kept non-negative.
    let mut h: u32 = 0x811c_9dc5;
    for &b in &name[..len.max(0) as usize] {
        h ^= u32::from(b as u8);
        h = h.wrapping_mul(0x0100_0193);
    }
    Some((h & 0x7fff_ffff) as c_int)
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_split_type(
    comm: MPI_Comm,
    split_type: c_int,
    key: c_int,
    info: MPI_Info,
    newcomm: *mut MPI_Comm,
) -> c_int {
    let Some(color) = split_type_color(split_type) else {
        lib().unsupported(&format!("MPI_Comm_split_type with split type {split_type}"))
    };
    split_as(SplitKind::SplitType, comm, color, key, newcomm, || {
        PMPI_Comm_split_type(comm, split_type, key, info, newcomm)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_create(
    comm: MPI_Comm,
    ndims: c_int,
    dims: *const c_int,
    periods: *const c_int,
    _reorder: c_int,
    comm_cart: *mut MPI_Comm,
) -> c_int {
    let n: c_int = if ndims > 0 && !dims.is_null() {
        std::slice::from_raw_parts(dims, ndims as usize)
            .iter()
            .product()
    } else {
        1
    };
    let (color, key) = first_ranks(comm, n);
    split_as(SplitKind::CartCreate, comm, color, key, comm_cart, || {
        PMPI_Cart_create(comm, ndims, dims, periods, 0, comm_cart)
    })
}

/// The colour and key under which `MPI_Comm_split` gives this rank of the
/// Cartesian communicator `comm` the subgrid `MPI_Cart_sub` keeps: the
/// row-major index of its coordinates in the dimensions dropped, and of
/// those in the dimensions kept. `None` when `comm` has no Cartesian
/// topology.
unsafe fn cart_sub_split(comm: MPI_Comm, remain: *const c_int) -> Option<(c_int, c_int)> {
    let mut topo: c_int = 0;
    PMPI_Topo_test(comm, &mut topo);
    if topo != RSMPI_CART {
        return None;
    }
    let mut ndims: c_int = 0;
    PMPI_Cartdim_get(comm, &mut ndims);
    let n = ndims.max(0) as usize;
    let (mut dims, mut periods, mut coords) = (vec![0; n], vec![0; n], vec![0; n]);
    PMPI_Cart_get(
        comm,
        ndims,
        dims.as_mut_ptr(),
        periods.as_mut_ptr(),
        coords.as_mut_ptr(),
    );
    let remain = if n == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(remain, n)
    };
    let (mut color, mut key) = (0, 0);
    for i in 0..n {
        if remain[i] != 0 {
            key = key * dims[i] + coords[i];
        } else {
            color = color * dims[i] + coords[i];
        }
    }
    // A subgrid of no dimension: MPICH gives the first process a
    // communicator of its own and every other `MPI_COMM_NULL`; Open MPI
    // gives each process one of its own, as the split above does.
    if remain.iter().all(|&r| r == 0) && !open_mpi() {
        let mut rank: c_int = 0;
        PMPI_Comm_rank(comm, &mut rank);
        if rank != 0 {
            color = RSMPI_UNDEFINED;
        }
    }
    Some((color, key))
}

/// Whether the MPI library is Open MPI (else it is MPICH or one built on
/// it), from its version string.
fn open_mpi() -> bool {
    static OPEN_MPI: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OPEN_MPI.get_or_init(|| {
        let mut buf = vec![0 as c_char; MPI_MAX_LIBRARY_VERSION_STRING as usize + 1];
        let mut len: c_int = 0;
        // SAFETY: the buffer holds the longest version string MPI writes.
        unsafe { PMPI_Get_library_version(buf.as_mut_ptr(), &mut len) };
        let bytes: Vec<u8> = buf[..len.clamp(0, buf.len() as c_int) as usize]
            .iter()
            .map(|&c| c as u8)
            .collect();
        bytes.starts_with(b"Open MPI")
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_sub(
    comm: MPI_Comm,
    remain_dims: *const c_int,
    newcomm: *mut MPI_Comm,
) -> c_int {
    match cart_sub_split(comm, remain_dims) {
        Some((color, key)) => split_as(SplitKind::CartSub, comm, color, key, newcomm, || {
            PMPI_Cart_sub(comm, remain_dims, newcomm)
        }),
        // Not a Cartesian communicator: MPI raises the error at once,
        // without communicating.
        None => PMPI_Cart_sub(comm, remain_dims, newcomm),
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Graph_create(
    comm: MPI_Comm,
    nnodes: c_int,
    index: *const c_int,
    edges: *const c_int,
    _reorder: c_int,
    comm_graph: *mut MPI_Comm,
) -> c_int {
    let (color, key) = first_ranks(comm, nnodes);
    split_as(SplitKind::GraphCreate, comm, color, key, comm_graph, || {
        PMPI_Graph_create(comm, nnodes, index, edges, 0, comm_graph)
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Dist_graph_create_adjacent(
    comm: MPI_Comm,
    indegree: c_int,
    sources: *const c_int,
    sourceweights: *const c_int,
    outdegree: c_int,
    destinations: *const c_int,
    destweights: *const c_int,
    info: MPI_Info,
    _reorder: c_int,
    comm_dist_graph: *mut MPI_Comm,
) -> c_int {
    let key = rank_in(comm);
    let how = SplitKind::DistGraphCreateAdjacent;
    split_as(how, comm, 0, key, comm_dist_graph, || {
        PMPI_Dist_graph_create_adjacent(
            comm,
            indegree,
            sources,
            sourceweights,
            outdegree,
            destinations,
            destweights,
            info,
            0,
            comm_dist_graph,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Dist_graph_create(
    comm: MPI_Comm,
    n: c_int,
    sources: *const c_int,
    degrees: *const c_int,
    destinations: *const c_int,
    weights: *const c_int,
    info: MPI_Info,
    _reorder: c_int,
    comm_dist_graph: *mut MPI_Comm,
) -> c_int {
    let key = rank_in(comm);
    split_as(
        SplitKind::DistGraphCreate,
        comm,
        0,
        key,
        comm_dist_graph,
        || {
            PMPI_Dist_graph_create(
                comm,
                n,
                sources,
                degrees,
                destinations,
                weights,
                info,
                0,
                comm_dist_graph,
            )
        },
    )
}
