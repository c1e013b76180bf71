//! Hashes of the data a rank sends, reported as [`Op::Data`] before the
//! call when the scheduler asks for them ([`fib_wire::env::HASH_DATA`]).
//! The scheduler compares whole runs with them: a run that differs from
//! another only in the order in which a row of wildcard receives took its
//! messages must send the same data too, or what the other ranks do with
//! it could differ. The data is packed with `MPI_Pack` (so a derived
//! datatype's gaps do not count) and hashed with a fixed hash, so every
//! run of the same program hashes alike.
//!
//! A point-to-point send hashes its buffer; a collective its contribution:
//! the send buffer of a reduction or scan (the receive buffer for
//! `MPI_IN_PLACE`), of a gather or all-gather (not in place), the root's buffer of a
//! broadcast (other ranks contribute nothing). A collective not listed here
//! reports no hash, and the scheduler takes a run with such a call to send
//! data it cannot compare.

use std::hash::Hasher;
use std::os::raw::{c_int, c_void};
use std::sync::OnceLock;

use fib_wire::Op;
use mpi_sys::*;

use crate::state::Lib;

/// Whether the scheduler asked for hashes.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var(fib_wire::env::HASH_DATA).is_ok_and(|v| v == "1"))
}

/// The hash of `count` elements of `dtype` at `buf`, packed.
unsafe fn hash(buf: *const c_void, count: c_int, dtype: MPI_Datatype, comm: MPI_Comm) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write_i32(count);
    let mut size: c_int = 0;
    if count <= 0 || PMPI_Pack_size(count, dtype, comm, &mut size) != MPI_SUCCESS as c_int {
        return h.finish();
    }
    let mut out = vec![0u8; size.max(0) as usize];
    let mut pos: c_int = 0;
    if PMPI_Pack(
        buf,
        count,
        dtype,
        out.as_mut_ptr().cast(),
        size,
        &mut pos,
        comm,
    ) != MPI_SUCCESS as c_int
    {
        // Data MPI cannot read is not data two runs can agree on.
        h.write_u64(u64::MAX);
        return h.finish();
    }
    h.write(&out[..pos.max(0) as usize]);
    h.finish()
}

/// Reports the hash of what a send or a collective sends, when asked to.
pub unsafe fn report(
    l: &mut Lib,
    buf: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
    comm: MPI_Comm,
) {
    if enabled() {
        l.event(Op::Data {
            hash: hash(buf, count, dtype, comm),
        });
    }
}

/// [`report`] for a collective whose contribution is `sendbuf`, or
/// `recvbuf` when `sendbuf` is `MPI_IN_PLACE`.
pub unsafe fn contribution(
    sendbuf: *const c_void,
    recvbuf: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
    comm: MPI_Comm,
) {
    if !enabled() {
        return;
    }
    let buf = if crate::owned::in_place(sendbuf) {
        recvbuf
    } else {
        sendbuf
    };
    report(&mut crate::held::lib(), buf, count, dtype, comm);
}

/// [`report`] for a gather's or all-gather's send buffer; nothing (so no
/// run with it compares) when it is `MPI_IN_PLACE`, whose contribution
/// lies somewhere in the receive buffer.
pub unsafe fn gathered(sendbuf: *const c_void, count: c_int, dtype: MPI_Datatype, comm: MPI_Comm) {
    if enabled() && !crate::owned::in_place(sendbuf) {
        report(&mut crate::held::lib(), sendbuf, count, dtype, comm);
    }
}

/// [`report`] for a broadcast: the root's buffer, nothing elsewhere.
pub unsafe fn broadcast(
    buffer: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) {
    if !enabled() {
        return;
    }
    let mut me: c_int = 0;
    PMPI_Comm_rank(comm, &mut me);
    let count = if me == root { count } else { 0 };
    report(&mut crate::held::lib(), buffer, count, dtype, comm);
}
