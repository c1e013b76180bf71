//! Arguments MPI does not accept, found before the call reaches MPI: a
//! negative count, a rank outside the communicator (other than
//! `MPI_PROC_NULL`, and `MPI_ANY_SOURCE` where a source may be any), a
//! negative tag (other than `MPI_ANY_TAG` on a receive or probe) or one
//! above `MPI_TAG_UB`, `MPI_COMM_NULL`, `MPI_DATATYPE_NULL`, a collective's
//! root outside the communicator. MPI libraries abort on some of these from
//! deep inside (or, for a tag above the bound, only on some transports) and
//! fib's own bookkeeping would go wrong on others, so the rank reports the
//! call with [`Up::Invalid`] and waits for the scheduler to end the run
//! (FIB012 at the call's site). A call about to write its new request's
//! handle over an active request of the library's table is reported the
//! same way with [`Up::Reused`] ([`request_out`]).

use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicI32, Ordering};

use fib_wire::Up;
use mpi_sys::*;

use crate::handle::same;
use crate::site;
use crate::state::Lib;

/// Reports the current call as invalid for `why` and waits for the end.
pub fn invalid(l: &mut Lib, why: String) -> ! {
    let site = site::for_call();
    l.push(Up::Invalid { site, message: why });
    l.conn.wait_for_eof()
}

/// A call that makes a request and writes its handle to `*request`: the
/// variable must not hold the handle of an active request the library
/// handed out, which would be lost (and never completed). The variable's
/// old value is read before the call writes it; an uninitialised one, a
/// completed request's `MPI_REQUEST_NULL`, a handle of fib's that is no
/// longer in use and an inactive persistent request's are all fine: only
/// a handle of fib's own table whose operation is active is reported.
///
/// # Safety
/// `request` is null or the program's `MPI_Request` variable.
pub unsafe fn request_out(l: &mut Lib, request: *mut MPI_Request) {
    if request.is_null() {
        return;
    }
    let old = crate::handle::bits(std::ptr::read_unaligned(request));
    let active = l
        .fakes
        .get(&old)
        .filter(|id| l.reqs.contains_key(id))
        .copied();
    let Some(id) = active else {
        // Free in this run; with threads, perhaps not in every execution.
        if crate::threads::several() {
            crate::threads::reuses(request as usize, site::for_call());
        }
        return;
    };
    let first = l.origins.get(&id).copied().unwrap_or_default();
    let site = site::for_call();
    l.push(Up::Reused { site, first });
    l.conn.wait_for_eof()
}

/// `MPI_TAG_UB` of `MPI_COMM_WORLD`, asked of MPI once (0: not yet).
static TAG_UB: AtomicI32 = AtomicI32::new(0);

fn tag_ub() -> c_int {
    let ub = TAG_UB.load(Ordering::Relaxed);
    if ub > 0 {
        return ub;
    }
    let mut val: *mut c_int = std::ptr::null_mut();
    let mut flag: c_int = 0;
    // SAFETY: MPI_TAG_UB's value is a pointer to an int that MPI owns.
    let ub = unsafe {
        PMPI_Comm_get_attr(
            RSMPI_COMM_WORLD,
            MPI_TAG_UB as c_int,
            (&mut val as *mut *mut c_int).cast::<c_void>(),
            &mut flag,
        );
        if flag != 0 && !val.is_null() {
            *val
        } else {
            // The least upper bound MPI guarantees.
            32767
        }
    };
    TAG_UB.store(ub, Ordering::Relaxed);
    ub
}

/// The number of processes of `comm` (its remote group's for an
/// intercommunicator: the ranks a point-to-point call names).
fn size_of(comm: MPI_Comm) -> c_int {
    let (mut inter, mut n) = (0, 0);
    // SAFETY: `comm` is a communicator the library knows.
    unsafe {
        PMPI_Comm_test_inter(comm, &mut inter);
        if inter != 0 {
            PMPI_Comm_remote_size(comm, &mut n);
        } else {
            PMPI_Comm_size(comm, &mut n);
        }
    }
    n
}

/// `MPI_COMM_NULL` where a communicator is needed.
pub fn comm(l: &mut Lib, comm: MPI_Comm) {
    // SAFETY: reading a constant.
    if same(comm, unsafe { RSMPI_COMM_NULL }) {
        invalid(l, "MPI_COMM_NULL is not a communicator".into());
    }
}

/// A negative element count.
pub fn count(l: &mut Lib, count: c_int) {
    if count < 0 {
        invalid(l, format!("count {count} is negative"));
    }
}

/// `MPI_DATATYPE_NULL` where data is sent or received.
pub fn datatype(l: &mut Lib, dtype: MPI_Datatype) {
    // SAFETY: reading a constant.
    if same(dtype, unsafe { RSMPI_DATATYPE_NULL }) {
        invalid(l, "MPI_DATATYPE_NULL is not a datatype".into());
    }
}

/// What a point-to-point call names: `peer` is a destination (`recv`
/// false) or a source; a source and a receive's tag may be wildcards.
pub fn p2p(
    l: &mut Lib,
    c: MPI_Comm,
    count_: c_int,
    dtype: MPI_Datatype,
    peer: c_int,
    tag: c_int,
    recv: bool,
) {
    comm(l, c);
    count(l, count_);
    datatype(l, dtype);
    // SAFETY: reading constants.
    let (proc_null, any_source, any_tag) =
        unsafe { (RSMPI_PROC_NULL, RSMPI_ANY_SOURCE, RSMPI_ANY_TAG) };
    if peer != proc_null && !(recv && peer == any_source) {
        let n = size_of(c);
        if peer < 0 || peer >= n {
            let what = if recv { "source" } else { "destination" };
            invalid(
                l,
                format!("{what} rank {peer} is out of range for a communicator of {n} processes"),
            );
        }
    }
    probe_tag(l, tag, recv, any_tag);
}

/// A probe's source and tag.
pub fn probe(l: &mut Lib, c: MPI_Comm, source: c_int, tag: c_int) {
    comm(l, c);
    // SAFETY: reading constants.
    let (proc_null, any_source, any_tag) =
        unsafe { (RSMPI_PROC_NULL, RSMPI_ANY_SOURCE, RSMPI_ANY_TAG) };
    if source != proc_null && source != any_source {
        let n = size_of(c);
        if source < 0 || source >= n {
            invalid(
                l,
                format!("source rank {source} is out of range for a communicator of {n} processes"),
            );
        }
    }
    probe_tag(l, tag, true, any_tag);
}

fn probe_tag(l: &mut Lib, tag: c_int, recv: bool, any_tag: c_int) {
    if tag < 0 && !(recv && tag == any_tag) {
        let allowed = if recv { " (and not MPI_ANY_TAG)" } else { "" };
        invalid(l, format!("tag {tag} is negative{allowed}"));
    }
    let ub = tag_ub();
    if tag > ub {
        invalid(l, format!("tag {tag} is above MPI_TAG_UB ({ub})"));
    }
}

/// A collective's communicator, and its root when it has one.
pub fn coll(l: &mut Lib, c: MPI_Comm, root: Option<c_int>) {
    comm(l, c);
    if let Some(root) = root {
        let n = size_of(c);
        // On an intercommunicator the root's group gives `MPI_ROOT` (the
        // root) or `MPI_PROC_NULL`, the other group the root's rank.
        // SAFETY: reading a constant; `c` is a communicator.
        let special = (root == MPI_ROOT || root == unsafe { RSMPI_PROC_NULL })
            && unsafe { crate::values::is_inter(c) };
        if !special && (root < 0 || root >= n) {
            invalid(
                l,
                format!("root {root} is out of range for a communicator of {n} processes"),
            );
        }
    }
}

/// A collective's element count and datatype, on the ranks that use them.
pub fn data(l: &mut Lib, count_: c_int, dtype: MPI_Datatype) {
    count(l, count_);
    datatype(l, dtype);
}
