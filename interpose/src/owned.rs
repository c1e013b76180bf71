//! The bytes of the program's memory a call hands MPI, as
//! [`memory::Buf`]s: a buffer of `count` elements of a datatype spans its
//! true extent (`PMPI_Type_get_true_extent`; the gaps of a derived
//! datatype count as part of it), the blocks of a `v` or `w` collective
//! are placed by their displacements, and `MPI_IN_PLACE` hands nothing
//! (the receive buffer, which MPI writes, is then read too). Used only
//! when the program was compiled to report its accesses.

use std::os::raw::{c_int, c_void};

use mpi_sys::*;

use crate::memory::Buf;
use crate::values::is_inter;

/// Whether a buffer argument is `MPI_IN_PLACE` (`(void *) -1` in MPICH,
/// `(void *) 1` in Open MPI).
pub fn in_place(buf: *const c_void) -> bool {
    matches!(buf as usize, 1 | usize::MAX)
}

/// `count` elements of `dtype` at `disp` bytes from `buf`.
pub unsafe fn bytes(
    buf: *const c_void,
    disp: isize,
    count: c_int,
    dtype: MPI_Datatype,
    writes: bool,
) -> Option<Buf> {
    if count <= 0
        || in_place(buf)
        || crate::handle::bits(dtype) == crate::handle::bits(RSMPI_DATATYPE_NULL)
    {
        return None;
    }
    let (mut lb, mut extent, mut tlb, mut textent): (MPI_Aint, MPI_Aint, MPI_Aint, MPI_Aint) =
        (0, 0, 0, 0);
    PMPI_Type_get_extent(dtype, &mut lb, &mut extent);
    PMPI_Type_get_true_extent(dtype, &mut tlb, &mut textent);
    let len = (count as isize - 1) * extent as isize + textent as isize;
    if len <= 0 {
        return None;
    }
    Some(Buf {
        addr: (buf as usize).wrapping_add_signed(disp + tlb as isize),
        len: len as usize,
        writes,
    })
}

/// `count` elements of `dtype` from `buf`, starting `disp` elements in.
pub unsafe fn elems(
    buf: *const c_void,
    disp: isize,
    count: c_int,
    dtype: MPI_Datatype,
    writes: bool,
) -> Option<Buf> {
    if count <= 0 {
        return None;
    }
    let (mut lb, mut extent): (MPI_Aint, MPI_Aint) = (0, 0);
    PMPI_Type_get_extent(dtype, &mut lb, &mut extent);
    bytes(buf, disp * extent as isize, count, dtype, writes)
}

/// `count` elements of `dtype` from `buf`.
pub unsafe fn data(
    buf: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
    writes: bool,
) -> Vec<Buf> {
    bytes(buf, 0, count, dtype, writes).into_iter().collect()
}

/// This rank's part in a collective on `comm` with root `root`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Root,
    Other,
    /// `MPI_PROC_NULL` on an intercommunicator: no buffer is used.
    Idle,
}

/// How many blocks a collective's buffers have (the remote group's size on
/// an intercommunicator), this rank's index, and its role for `root`.
pub unsafe fn group(comm: MPI_Comm, root: c_int) -> (usize, usize, Role) {
    let (mut size, mut rank): (c_int, c_int) = (0, 0);
    PMPI_Comm_rank(comm, &mut rank);
    let inter = is_inter(comm);
    if inter {
        PMPI_Comm_remote_size(comm, &mut size);
    } else {
        PMPI_Comm_size(comm, &mut size);
    }
    let role = if inter {
        if root == MPI_ROOT {
            Role::Root
        } else if root == RSMPI_PROC_NULL {
            Role::Idle
        } else {
            Role::Other
        }
    } else if root == rank {
        Role::Root
    } else {
        Role::Other
    };
    (size.max(0) as usize, rank.max(0) as usize, role)
}

/// The blocks of a `v` collective's buffer: `counts[i]` elements at
/// `displs[i]` elements, for each of `n` blocks.
pub unsafe fn blocks(
    buf: *const c_void,
    n: usize,
    counts: *const c_int,
    displs: *const c_int,
    dtype: MPI_Datatype,
    writes: bool,
) -> Vec<Buf> {
    if counts.is_null() || displs.is_null() {
        return Vec::new();
    }
    (0..n)
        .filter_map(|i| elems(buf, *displs.add(i) as isize, *counts.add(i), dtype, writes))
        .collect()
}

/// The blocks of a `w` collective's buffer: displacements in bytes, one
/// datatype per block.
pub unsafe fn wblocks(
    buf: *const c_void,
    n: usize,
    counts: *const c_int,
    displs: *const c_int,
    types: *const MPI_Datatype,
    writes: bool,
) -> Vec<Buf> {
    if counts.is_null() || displs.is_null() || types.is_null() {
        return Vec::new();
    }
    (0..n)
        .filter_map(|i| {
            bytes(
                buf,
                *displs.add(i) as isize,
                *counts.add(i),
                *types.add(i),
                writes,
            )
        })
        .collect()
}

/// One buffer of a neighbourhood collective, block `k` for the `k`th
/// neighbour.
#[derive(Clone, Copy)]
pub enum Blocks {
    /// The same `count` elements for every neighbour (an all-gather's send
    /// buffer).
    Same(*const c_void, c_int, MPI_Datatype),
    /// `count` elements per neighbour, one after the other.
    Each(*const c_void, c_int, MPI_Datatype),
    /// `counts[k]` elements at `displs[k]` elements.
    V(*const c_void, *const c_int, *const c_int, MPI_Datatype),
    /// `counts[k]` elements of `types[k]` at `displs[k]` bytes.
    W(
        *const c_void,
        *const c_int,
        *const MPI_Aint,
        *const MPI_Datatype,
    ),
}

/// The bytes of `blocks` that MPI reads (or writes) for the neighbours
/// `used` says are ranks (a `MPI_PROC_NULL` neighbour's block is not
/// touched).
pub unsafe fn neighbour_blocks(blocks: Blocks, used: &[bool], writes: bool) -> Vec<Buf> {
    let block = |k: usize| -> Option<Buf> {
        match blocks {
            Blocks::Same(..) => None,
            Blocks::Each(buf, count, dtype) => elems(
                buf,
                (k as isize).saturating_mul(count as isize),
                count,
                dtype,
                writes,
            ),
            Blocks::V(buf, counts, displs, dtype) if !counts.is_null() && !displs.is_null() => {
                elems(buf, *displs.add(k) as isize, *counts.add(k), dtype, writes)
            }
            Blocks::W(buf, counts, displs, types)
                if !counts.is_null() && !displs.is_null() && !types.is_null() =>
            {
                bytes(
                    buf,
                    *displs.add(k) as isize,
                    *counts.add(k),
                    *types.add(k),
                    writes,
                )
            }
            _ => None,
        }
    };
    match blocks {
        // One buffer for every neighbour: read if any is a rank.
        Blocks::Same(buf, count, dtype) if used.contains(&true) => data(buf, count, dtype, writes),
        Blocks::Same(..) => Vec::new(),
        _ => (0..used.len())
            .filter(|&k| used[k])
            .filter_map(block)
            .collect(),
    }
}

/// A neighbourhood collective's buffers on `comm`: `send` read for its
/// destinations, `recv` written for its sources.
pub unsafe fn neighbourhood(comm: MPI_Comm, send: Blocks, recv: Blocks) -> Vec<Buf> {
    let Some((dests, sources)) = crate::exchange::used_blocks(comm) else {
        return Vec::new();
    };
    let mut b = neighbour_blocks(send, &dests, false);
    b.extend(neighbour_blocks(recv, &sources, true));
    b
}

/// The buffers of the collectives whose nonblocking and blocking forms
/// both watch them (`icoll.rs` for the operation's life, `coll.rs` for
/// other threads' accesses during the call): each read by MPI or written,
/// `n` being the group's size (the remote group's on an intercommunicator)
/// and `role` the rank's.
pub mod of {
    use std::os::raw::{c_int, c_void};

    use mpi_sys::*;

    use super::{data, elems, Role};
    use crate::memory::Buf;

    /// `n` blocks of `count` elements from `buf`.
    unsafe fn blocks(
        buf: *const c_void,
        count: c_int,
        dtype: MPI_Datatype,
        n: usize,
        writes: bool,
    ) -> Option<Buf> {
        elems(buf, 0, count.saturating_mul(n as c_int), dtype, writes)
    }

    /// A broadcast: the root's buffer is read, the others' written.
    pub unsafe fn bcast(
        buf: *mut c_void,
        count: c_int,
        dtype: MPI_Datatype,
        role: Role,
    ) -> Vec<Buf> {
        data(buf, count, dtype, role != Role::Root)
    }

    /// A reduction to every rank (`Allreduce`, `Scan`, `Exscan`).
    pub unsafe fn reduction(
        send: *const c_void,
        recv: *mut c_void,
        count: c_int,
        dtype: MPI_Datatype,
    ) -> Vec<Buf> {
        let mut b = data(send, count, dtype, false);
        b.extend(data(recv, count, dtype, true));
        b
    }

    /// A reduction to the root.
    pub unsafe fn reduce(
        send: *const c_void,
        recv: *mut c_void,
        count: c_int,
        dtype: MPI_Datatype,
        role: Role,
    ) -> Vec<Buf> {
        let mut b = data(send, count, dtype, false);
        if role == Role::Root {
            b.extend(data(recv, count, dtype, true));
        }
        b
    }

    /// A gather: the root's receive buffer holds `n` blocks.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn gather(
        send: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        n: usize,
        role: Role,
    ) -> Vec<Buf> {
        let mut b = data(send, sendcount, sendtype, false);
        if role == Role::Root {
            b.extend(blocks(recv, recvcount, recvtype, n, true));
        }
        b
    }

    /// A scatter: the root's send buffer holds `n` blocks.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn scatter(
        send: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        n: usize,
        role: Role,
    ) -> Vec<Buf> {
        let mut b = data(recv, recvcount, recvtype, true);
        if role == Role::Root {
            b.extend(blocks(send, sendcount, sendtype, n, false));
        }
        b
    }

    /// An all-gather: every receive buffer holds `n` blocks.
    pub unsafe fn allgather(
        send: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        n: usize,
    ) -> Vec<Buf> {
        let mut b = data(send, sendcount, sendtype, false);
        b.extend(blocks(recv, recvcount, recvtype, n, true));
        b
    }

    /// A `v` gather: the root's receive buffer holds `n` blocks of their
    /// own counts and displacements.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn gatherv(
        send: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcounts: *const c_int,
        displs: *const c_int,
        recvtype: MPI_Datatype,
        n: usize,
        role: Role,
    ) -> Vec<Buf> {
        let mut b = data(send, sendcount, sendtype, false);
        if role == Role::Root {
            b.extend(super::blocks(recv, n, recvcounts, displs, recvtype, true));
        }
        b
    }

    /// A `v` scatter: the root's send buffer holds `n` blocks.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn scatterv(
        send: *const c_void,
        sendcounts: *const c_int,
        displs: *const c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        n: usize,
        role: Role,
    ) -> Vec<Buf> {
        let mut b = data(recv, recvcount, recvtype, true);
        if role == Role::Root {
            b.extend(super::blocks(send, n, sendcounts, displs, sendtype, false));
        }
        b
    }

    /// A `v` all-gather: every receive buffer holds `n` blocks.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn allgatherv(
        send: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcounts: *const c_int,
        displs: *const c_int,
        recvtype: MPI_Datatype,
        n: usize,
    ) -> Vec<Buf> {
        let mut b = data(send, sendcount, sendtype, false);
        b.extend(super::blocks(recv, n, recvcounts, displs, recvtype, true));
        b
    }

    /// A `v` all-to-all: both buffers hold `n` blocks.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn alltoallv(
        send: *const c_void,
        sendcounts: *const c_int,
        sdispls: *const c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcounts: *const c_int,
        rdispls: *const c_int,
        recvtype: MPI_Datatype,
        n: usize,
    ) -> Vec<Buf> {
        let mut b = super::blocks(send, n, sendcounts, sdispls, sendtype, false);
        b.extend(super::blocks(recv, n, recvcounts, rdispls, recvtype, true));
        b
    }

    /// A `w` all-to-all: both buffers hold `n` blocks, each of its own
    /// datatype at a displacement in bytes.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn alltoallw(
        send: *const c_void,
        sendcounts: *const c_int,
        sdispls: *const c_int,
        sendtypes: *const MPI_Datatype,
        recv: *mut c_void,
        recvcounts: *const c_int,
        rdispls: *const c_int,
        recvtypes: *const MPI_Datatype,
        n: usize,
    ) -> Vec<Buf> {
        let mut b = super::wblocks(send, n, sendcounts, sdispls, sendtypes, false);
        b.extend(super::wblocks(
            recv, n, recvcounts, rdispls, recvtypes, true,
        ));
        b
    }

    /// A reduce-scatter: the send buffer holds every rank's counts, the
    /// receive buffer this rank's (`me`).
    pub unsafe fn reduce_scatter(
        send: *const c_void,
        recv: *mut c_void,
        recvcounts: *const c_int,
        dtype: MPI_Datatype,
        n: usize,
        me: usize,
    ) -> Vec<Buf> {
        if recvcounts.is_null() {
            return Vec::new();
        }
        let total: c_int = (0..n).map(|i| *recvcounts.add(i)).sum();
        let mut b = data(send, total, dtype, false);
        b.extend(data(recv, *recvcounts.add(me), dtype, true));
        b
    }

    /// A reduce-scatter of equal blocks.
    pub unsafe fn reduce_scatter_block(
        send: *const c_void,
        recv: *mut c_void,
        recvcount: c_int,
        dtype: MPI_Datatype,
        n: usize,
    ) -> Vec<Buf> {
        let mut b = data(send, recvcount.saturating_mul(n as c_int), dtype, false);
        b.extend(data(recv, recvcount, dtype, true));
        b
    }

    /// An all-to-all: both buffers hold `n` blocks.
    pub unsafe fn alltoall(
        send: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recv: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        n: usize,
    ) -> Vec<Buf> {
        let mut b: Vec<Buf> = blocks(send, sendcount, sendtype, n, false)
            .into_iter()
            .collect();
        b.extend(blocks(recv, recvcount, recvtype, n, true));
        b
    }
}
