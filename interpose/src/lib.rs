//! The PMPI interposition library that fib loads into every MPI rank with
//! `LD_PRELOAD`. It defines the MPI functions fib models (the list in
//! [`fib_wire::INTERCEPTED`]), reports every call to the scheduler over the
//! Unix socket named by `FIB_SOCKET`, and lets a blocking call proceed only
//! when the scheduler says so. Receives are deferred until the scheduler has
//! chosen their source, so a wildcard receive never reaches MPI as a wildcard.
//! The functions in [`fib_wire::UNSUPPORTED`] are reported and stop the run;
//! every other MPI function is left to the MPI library.
//!
//! The library only ever calls `PMPI_*` functions (calling `MPI_*` would
//! recurse into these wrappers) and takes every MPI constant from mpi-sys, so
//! it builds against MPICH and Open MPI alike. It never waits inside a
//! blocking PMPI call: it issues the nonblocking form and polls it with
//! `sched_yield`, which keeps oversubscribed runs fast.

// The exported functions carry the MPI names, and their safety contract is
// the MPI standard's, so neither naming nor safety sections apply here.
#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

mod ahead;
mod check;
mod coll;
mod conn;
mod crash;
mod digest;
mod errors;
mod exchange;
mod extents;
mod gate;
mod handle;
mod handles;
mod heap;
mod held;
mod icoll;
mod init;
mod inter;
mod local;
mod memory;
mod owned;
mod p2p;
mod progress;
mod record;
mod report;
mod sig;
mod site;
mod state;
mod tables;
mod threads;
mod topo;
mod typemap;
mod unsupported;
mod values;
mod wait;
mod windows;

pub use coll::*;
pub use extents::fib_set_bound;
pub use handles::*;
pub use heap::*;
pub use icoll::*;
pub use init::*;
pub use inter::*;
pub use memory::*;
pub use p2p::*;
pub use site::fib_set_site;
pub use threads::fib_set_any_thread;
pub use topo::*;
pub use unsupported::*;
pub use wait::*;
pub use windows::*;
