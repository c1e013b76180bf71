//! The blocks by peer of the collectives whose counts and datatypes concern
//! each pair of ranks, reported as [`Op::Exchange`] just before the call so
//! the engine can compare each rank's block for a peer with that peer's
//! block from it: `MPI_Alltoallv` and `MPI_Alltoallw` (every rank of the
//! communicator is a peer), and the neighbourhood collectives, whose peers
//! are the communicator's topology's neighbours, in MPI's order: for a
//! Cartesian topology the source and destination of `MPI_Cart_shift` by 1
//! in each dimension, for a graph `MPI_Graph_neighbors`, for a distributed
//! graph `MPI_Dist_graph_neighbors`' sources (received from) and
//! destinations (sent to). A block's key tells apart blocks between the
//! same two ranks: on a Cartesian topology the direction the data travels
//! (a rank's block for its destination in a dimension is its
//! destination's block from its source there), elsewhere the block's order
//! among those for the same peer. `MPI_PROC_NULL` neighbours exchange
//! nothing and are left out. Nothing is reported on an intercommunicator.

use std::os::raw::c_int;

use fib_wire::{Block, Op};
use mpi_sys::*;

use crate::held::lib;

/// The count (or counts by block) of one side of a call.
#[derive(Clone, Copy)]
pub enum Counts {
    One(c_int),
    Each(*const c_int),
}

/// The datatype (or datatypes by block) of one side of a call.
#[derive(Clone, Copy)]
pub enum Types {
    One(MPI_Datatype),
    Each(*const MPI_Datatype),
}

/// One side of a call: its counts and datatypes.
#[derive(Clone, Copy)]
pub struct Side {
    pub counts: Counts,
    pub types: Types,
}

/// The peers of a rank: those it sends to and those it receives from, in
/// block order, each with its key (`None` for `MPI_PROC_NULL`).
type Peers = (Vec<Option<(i32, u32)>>, Vec<Option<(i32, u32)>>);

/// Keys each peer by its occurrence among the same peer in `peers`.
fn by_occurrence(peers: &[c_int]) -> Vec<Option<(i32, u32)>> {
    // SAFETY: a constant of the MPI library, read after `MPI_Init`.
    let null = unsafe { RSMPI_PROC_NULL };
    peers
        .iter()
        .enumerate()
        .map(|(k, &p)| {
            let seen = peers[..k].iter().filter(|&&q| q == p).count() as u32;
            (p != null && p >= 0).then_some((p, seen))
        })
        .collect()
}

/// The neighbours of this rank in `comm`'s topology; `None` when it has
/// none.
unsafe fn neighbours(comm: MPI_Comm) -> Option<Peers> {
    let mut topo: c_int = 0;
    PMPI_Topo_test(comm, &mut topo);
    if topo == RSMPI_CART {
        let mut ndims: c_int = 0;
        PMPI_Cartdim_get(comm, &mut ndims);
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        for d in 0..ndims.max(0) {
            let (mut src, mut dst) = (0, 0);
            PMPI_Cart_shift(comm, d, 1, &mut src, &mut dst);
            let key = 2 * d as u32;
            let real = |p: c_int, key| (p != RSMPI_PROC_NULL && p >= 0).then_some((p, key));
            // Sent down to the source, up to the destination; received
            // from the source what it sent up, from the destination what
            // it sent down.
            sends.push(real(src, key));
            sends.push(real(dst, key + 1));
            recvs.push(real(src, key + 1));
            recvs.push(real(dst, key));
        }
        return Some((sends, recvs));
    }
    if topo == RSMPI_GRAPH {
        let mut me = 0;
        PMPI_Comm_rank(comm, &mut me);
        let mut n: c_int = 0;
        PMPI_Graph_neighbors_count(comm, me, &mut n);
        let mut peers = vec![0; n.max(0) as usize];
        PMPI_Graph_neighbors(comm, me, n, peers.as_mut_ptr());
        let keyed = by_occurrence(&peers);
        return Some((keyed.clone(), keyed));
    }
    if topo == RSMPI_DIST_GRAPH {
        let (mut indeg, mut outdeg, mut weighted) = (0, 0, 0);
        PMPI_Dist_graph_neighbors_count(comm, &mut indeg, &mut outdeg, &mut weighted);
        let mut sources = vec![0; indeg.max(0) as usize];
        let mut dests = vec![0; outdeg.max(0) as usize];
        let mut sw = vec![0; indeg.max(1) as usize];
        let mut dw = vec![0; outdeg.max(1) as usize];
        PMPI_Dist_graph_neighbors(
            comm,
            indeg,
            sources.as_mut_ptr(),
            sw.as_mut_ptr(),
            outdeg,
            dests.as_mut_ptr(),
            dw.as_mut_ptr(),
        );
        return Some((by_occurrence(&dests), by_occurrence(&sources)));
    }
    None
}

/// Which blocks of a neighbourhood collective's buffers MPI uses on
/// `comm`: per destination (send buffer) and per source (receive buffer),
/// whether the neighbour is a rank (not `MPI_PROC_NULL`); `None` without
/// a topology.
pub unsafe fn used_blocks(comm: MPI_Comm) -> Option<(Vec<bool>, Vec<bool>)> {
    let (sends, recvs) = neighbours(comm)?;
    Some((
        sends.iter().map(Option::is_some).collect(),
        recvs.iter().map(Option::is_some).collect(),
    ))
}

/// The blocks of one side: the `k`th peer's block is `counts[k]` of
/// `types[k]` (or the one count, the one datatype).
unsafe fn blocks(peers: &[Option<(i32, u32)>], side: Side) -> Vec<Block> {
    let mut named: Vec<(u64, (String, i64))> = Vec::new();
    let mut made_of = |t: MPI_Datatype| {
        let b = crate::handle::bits(t);
        if let Some((_, m)) = named.iter().find(|(h, _)| *h == b) {
            return m.clone();
        }
        let m = crate::sig::made_of(t);
        named.push((b, m.clone()));
        m
    };
    peers
        .iter()
        .enumerate()
        .filter_map(|(k, p)| {
            let (peer, key) = (*p)?;
            let count = match side.counts {
                Counts::One(c) => c,
                Counts::Each(c) if c.is_null() => return None,
                Counts::Each(c) => *c.add(k),
            };
            let t = match side.types {
                Types::One(t) => t,
                Types::Each(t) if t.is_null() => return None,
                Types::Each(t) => *t.add(k),
            };
            let (dtype, per) = made_of(t);
            Some(Block {
                peer,
                key,
                dtype,
                count: count as i64 * per,
            })
        })
        .collect()
}

/// Reports the blocks of an `MPI_Alltoallv` or `MPI_Alltoallw` on `comm`
/// (`in_place`: the receive side is the send side too).
pub unsafe fn all(comm: MPI_Comm, send: Side, recv: Side, in_place: bool) {
    if same_null(comm) || crate::values::is_inter(comm) {
        return;
    }
    let mut n = 0;
    PMPI_Comm_size(comm, &mut n);
    let peers: Vec<c_int> = (0..n).collect();
    let keyed = by_occurrence(&peers);
    report(&keyed, &keyed, if in_place { recv } else { send }, recv);
}

/// Reports the blocks of a neighbourhood collective on `comm`.
pub unsafe fn neighbourhood(comm: MPI_Comm, send: Side, recv: Side) {
    if same_null(comm) || crate::values::is_inter(comm) {
        return;
    }
    if let Some((to, from)) = neighbours(comm) {
        report(&to, &from, send, recv);
    }
}

fn same_null(comm: MPI_Comm) -> bool {
    crate::handle::same(comm, unsafe { RSMPI_COMM_NULL })
}

unsafe fn report(to: &[Option<(i32, u32)>], from: &[Option<(i32, u32)>], send: Side, recv: Side) {
    let sends = blocks(to, send);
    let recvs = blocks(from, recv);
    lib().event(Op::Exchange { sends, recvs });
}
