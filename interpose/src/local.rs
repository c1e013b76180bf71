//! The local calls of `fib_wire::THREAD_CHECKED`: MPI runs them untouched,
//! and the scheduler never hears of them, but the calling thread is checked
//! against the thread level MPI provided like any call's
//! (`threads::enter`, `threads::leave`); what it finds goes out at the
//! rank's next reported call.

use std::os::raw::{c_char, c_int};

use mpi_sys::*;

use crate::site;
use crate::threads;

/// Runs the local call `call` as the calling thread's MPI call.
fn checked(call: impl FnOnce() -> c_int) -> c_int {
    threads::enter(site::current());
    let rc = call();
    threads::leave(None);
    rc
}

/// # Safety
/// As `MPI_Comm_rank`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_rank(comm: MPI_Comm, rank: *mut c_int) -> c_int {
    checked(|| PMPI_Comm_rank(comm, rank))
}

/// # Safety
/// As `MPI_Comm_size`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_size(comm: MPI_Comm, size: *mut c_int) -> c_int {
    checked(|| PMPI_Comm_size(comm, size))
}

/// # Safety
/// As `MPI_Get_processor_name`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_processor_name(name: *mut c_char, len: *mut c_int) -> c_int {
    checked(|| PMPI_Get_processor_name(name, len))
}

#[cfg(test)]
mod tests {
    /// The wrappers here are the list's, no more and no fewer.
    #[test]
    fn the_wrappers_are_the_thread_checked_list() {
        let text = include_str!("local.rs");
        let defined: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("pub unsafe extern \"C\" fn "))
            .filter_map(|l| l.split('(').next())
            .collect();
        assert_eq!(defined, fib_wire::THREAD_CHECKED);
    }
}
