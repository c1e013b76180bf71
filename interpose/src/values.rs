//! Plain MPI values the library makes, translates or asks about, with no
//! state behind them. It makes the statuses handed to the program (of a
//! null request, of a receive from `MPI_PROC_NULL`, of a cancelled receive,
//! of a send) and writes them to the program's status arguments; it
//! translates ranks, roots and tags to and from their wire values; it makes
//! the private copy a send can go from; and it tells an intercommunicator
//! from an intra-communicator.

use std::os::raw::{c_int, c_void};

use fib_wire::{ANY, PROC_NULL};
use mpi_sys::*;

/// A status as MPI defines it for a null request: any source, any tag,
/// success, nothing received.
pub fn empty_status() -> MPI_Status {
    // Made through MPI once (every completion of a send or a wait needs
    // one), and copied after that.
    static EMPTY: std::sync::OnceLock<MPI_Status> = std::sync::OnceLock::new();
    *EMPTY.get_or_init(|| {
        // SAFETY: MPI_Status is a plain C struct; all zeros is a valid
        // value, and the fields that matter are set through MPI below.
        let mut st: MPI_Status = unsafe { std::mem::zeroed() };
        unsafe {
            st.MPI_SOURCE = RSMPI_ANY_SOURCE;
            st.MPI_TAG = RSMPI_ANY_TAG;
            st.MPI_ERROR = MPI_SUCCESS as c_int;
            PMPI_Status_set_elements(&mut st, RSMPI_UINT8_T, 0);
            PMPI_Status_set_cancelled(&mut st, 0);
        }
        st
    })
}

/// The status of a receive from `MPI_PROC_NULL`.
pub fn proc_null_status() -> MPI_Status {
    let mut st = empty_status();
    // SAFETY: reading constants.
    unsafe { st.MPI_SOURCE = RSMPI_PROC_NULL };
    st
}

/// The status of a receive cancelled before it was posted to MPI.
pub fn cancelled_status() -> MPI_Status {
    let mut st = empty_status();
    // SAFETY: setting a field of a valid status.
    unsafe { PMPI_Status_set_cancelled(&mut st, 1) };
    st
}

/// The status reported for a completed send.
pub fn send_status() -> MPI_Status {
    let mut st = empty_status();
    st.MPI_SOURCE = 0;
    st.MPI_TAG = 0;
    st
}

/// Copies `st` to the program's status unless it passed `MPI_STATUS_IGNORE`.
pub unsafe fn put_status(dst: *mut MPI_Status, st: &MPI_Status) {
    if !dst.is_null() && dst != RSMPI_STATUS_IGNORE {
        write_status(dst, st);
    }
}

/// Writes `st` to the program's status at `dst`, all but its `MPI_ERROR`
/// field: MPI sets that only when a call that completes several requests
/// fails with `MPI_ERR_IN_STATUS`, which fib's calls never return, so the
/// program's value stays (MPICH's tests check that it does).
pub unsafe fn write_status(dst: *mut MPI_Status, st: &MPI_Status) {
    let error = (*dst).MPI_ERROR;
    *dst = *st;
    (*dst).MPI_ERROR = error;
}

/// Writes the empty status to the program's status unless it passed
/// `MPI_STATUS_IGNORE`: all of it, `MPI_ERROR` too, which the empty
/// status sets to `MPI_SUCCESS`. `MPI_Request_get_status` of a null or
/// inactive request answers so in MPICH (its test `rqstatus` checks it);
/// MPICH's waits and tests of a null request leave `MPI_ERROR` alone, and
/// so do fib's ([`write_status`]).
pub unsafe fn put_empty(dst: *mut MPI_Status) {
    if !dst.is_null() && dst != RSMPI_STATUS_IGNORE {
        *dst = empty_status();
    }
}

/// Whether the program passed `MPI_STATUSES_IGNORE`.
pub unsafe fn statuses_ignored(p: *mut MPI_Status) -> bool {
    p.is_null() || p == RSMPI_STATUSES_IGNORE
}

/// A source or destination rank as sent on the wire.
pub fn rank_to_wire(r: c_int) -> i32 {
    // SAFETY: reading constants.
    unsafe {
        if r == RSMPI_ANY_SOURCE {
            ANY
        } else if r == RSMPI_PROC_NULL {
            PROC_NULL
        } else {
            r
        }
    }
}

/// A collective's root as sent on the wire: `MPI_ROOT` and
/// `MPI_PROC_NULL` (on an intercommunicator) become [`fib_wire::ROOT`] and
/// [`PROC_NULL`].
pub fn root_to_wire(r: c_int) -> i32 {
    if r == MPI_ROOT {
        fib_wire::ROOT
    } else {
        rank_to_wire(r)
    }
}

/// A rank from the wire as MPI wants it.
pub fn rank_from_wire(r: i32) -> c_int {
    // SAFETY: reading constants.
    unsafe {
        match r {
            ANY => RSMPI_ANY_SOURCE,
            PROC_NULL => RSMPI_PROC_NULL,
            r => r,
        }
    }
}

/// A tag as sent on the wire.
pub fn tag_to_wire(t: c_int) -> i32 {
    // SAFETY: reading a constant.
    if t == unsafe { RSMPI_ANY_TAG } {
        ANY
    } else {
        t
    }
}

/// A tag from the wire as MPI wants it.
pub fn tag_from_wire(t: i32) -> c_int {
    if t == ANY {
        // SAFETY: reading a constant.
        unsafe { RSMPI_ANY_TAG }
    } else {
        t
    }
}

/// A private copy of `count` elements of `dtype` at `buf`, and the address
/// to hand MPI in place of `buf` (the copy keeps the datatype's layout from
/// its true lower bound on).
pub unsafe fn copy_of(
    buf: *const c_void,
    count: c_int,
    dtype: MPI_Datatype,
) -> (Vec<u64>, *const c_void) {
    let mut lb: MPI_Aint = 0;
    let mut extent: MPI_Aint = 0;
    let mut tlb: MPI_Aint = 0;
    let mut textent: MPI_Aint = 0;
    PMPI_Type_get_extent(dtype, &mut lb, &mut extent);
    PMPI_Type_get_true_extent(dtype, &mut tlb, &mut textent);
    let n = if count > 0 {
        ((count as MPI_Aint - 1) * extent + textent).max(0) as usize
    } else {
        0
    };
    let mut copy = vec![0u64; n.div_ceil(8)];
    if n > 0 {
        std::ptr::copy_nonoverlapping(
            (buf as *const u8).wrapping_offset(tlb as isize),
            copy.as_mut_ptr() as *mut u8,
            n,
        );
    }
    let from = (copy.as_ptr() as *const u8).wrapping_offset(-(tlb as isize));
    (copy, from.cast())
}

/// Whether `comm` is an intercommunicator.
pub(crate) unsafe fn is_inter(comm: MPI_Comm) -> bool {
    let mut flag: c_int = 0;
    PMPI_Comm_test_inter(comm, &mut flag);
    flag != 0
}
