//! `MPI_Init`, `MPI_Init_thread`, `MPI_Finalize` and `MPI_Abort`: connecting
//! to the scheduler, saying hello, and leaving cleanly.

use std::os::raw::{c_char, c_int};
use std::sync::atomic::Ordering;

use fib_wire::env::{KEY, SOCKET as SOCKET_ENV, ZERO_BUFFER};
use fib_wire::{Level, Op, Up};
use mpi_sys::*;

use crate::conn::{log, Watched, RANK};
use crate::crash;
use crate::errors;
use crate::held::lib;
use crate::site;
use crate::state::{self, try_lib, Lib};

/// Connects to the scheduler before MPI starts, the connection watched
/// until it has ([`Watched`]); `None` outside a run of fib's.
fn connect() -> Option<Watched> {
    std::env::var(SOCKET_ENV)
        .ok()
        .map(|path| Watched::connect(&path))
}

/// Says hello to the scheduler once MPI is up.
unsafe fn start(early: Option<Watched>) {
    let mut rank: c_int = 0;
    let mut size: c_int = 0;
    PMPI_Comm_rank(RSMPI_COMM_WORLD, &mut rank);
    PMPI_Comm_size(RSMPI_COMM_WORLD, &mut size);
    RANK.store(rank, Ordering::Relaxed);
    crate::progress::make_progress_comm(size);
    let Some(early) = early else {
        log(&format!(
            "{SOCKET_ENV} is not set; run this program with fib check"
        ));
        libc::_exit(3);
    };
    let zero_buffer = std::env::var(ZERO_BUFFER).is_ok_and(|v| v == "1");
    let conn = early.into_conn();
    state::install(Lib::new(rank, zero_buffer, conn));
    let mut l = lib();
    l.conn.push(&Up::Hello {
        rank: rank as u32,
        size: size as u32,
        pid: std::process::id(),
        key: std::env::var(KEY)
            .ok()
            .and_then(|k| u64::from_str_radix(&k, 16).ok())
            .unwrap_or(0),
    });
    crate::threads::connected();
    crate::gate::install();
    site::announce_files();
    // Flushed at once, so the scheduler knows the rank even if it dies
    // before its first blocking call.
    l.conn.flush();
    crash::install();
    errors::install();
    // A panic inside the library is a bug in fib, not in the program: say so
    // on one line and leave with the protocol-error status.
    std::panic::set_hook(Box::new(|info| {
        log(&format!("internal error: {info}"));
        libc::_exit(3);
    }));
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
    let site = site::for_call();
    let early = connect();
    let rc = PMPI_Init(argc, argv);
    start(early);
    let mut level: c_int = 0;
    PMPI_Query_thread(&mut level);
    let level = thread_level(level);
    crate::threads::initialised(site, Level::Single, level, None);
    rc
}

/// The thread level of MPI's constant `v`.
fn thread_level(v: c_int) -> Level {
    // SAFETY: reading constants.
    unsafe {
        if v == RSMPI_THREAD_MULTIPLE {
            Level::Multiple
        } else if v == RSMPI_THREAD_SERIALIZED {
            Level::Serialized
        } else if v == RSMPI_THREAD_FUNNELED {
            Level::Funneled
        } else {
            Level::Single
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Init_thread(
    argc: *mut c_int,
    argv: *mut *mut *mut c_char,
    required: c_int,
    provided: *mut c_int,
) -> c_int {
    let site = site::for_call();
    let early = connect();
    let rc = PMPI_Init_thread(argc, argv, required, provided);
    start(early);
    let level = if provided.is_null() {
        Level::Single
    } else {
        thread_level(*provided)
    };
    crate::threads::initialised(
        site,
        thread_level(required),
        level,
        (!provided.is_null()).then_some(provided as usize),
    );
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Finalize() -> c_int {
    let mut l = lib();
    crate::windows::at_finalize(&mut l);
    crate::handles::report(&mut l);
    if l.record.is_some() {
        l.event_settled(Op::Finalize, true);
        // A nonblocking collective the program never completed may still
        // be needed by the ranks that wait for it (an `MPI_Comm_idup`'s
        // new context): it is driven to its end in MPI first, as a
        // scheduled rank's progress does while it waits to finalize.
        let mut colls: Vec<u32> = l
            .reqs
            .iter()
            .filter(|(_, r)| matches!(r.kind, crate::state::Kind::Coll(_)))
            .map(|(&id, _)| id)
            .collect();
        colls.sort_unstable();
        if !colls.is_empty() {
            l.settle(&colls);
        }
        // MPI_Finalize waits for the other ranks: everything is sent first,
        // and the rank counts as waiting from here on.
        l.blocked(true);
    } else {
        l.event(Op::Finalize);
        l.wait_go();
    }
    crate::windows::free_leaked(&mut l);
    l.finish_background();
    crate::progress::free_progress_comm();
    let rc = PMPI_Finalize();
    l.conn.release();
    state::uninstall();
    rc
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Abort(comm: MPI_Comm, code: c_int) -> c_int {
    if let Some(l) = try_lib() {
        let site = site::for_call();
        l.push(Up::Abort { site, code });
        l.conn.flush();
    }
    PMPI_Abort(comm, code)
}
