//! The processes fib starts and the user's interrupt. Every process group
//! fib starts (a run's `mpiexec`, the user's build command of `--build`) is
//! watched here, so that nothing it started outlives fib: on success,
//! failure, timeout or interrupt the whole group is killed ([`groups`]).
//! The temporary directories of the work in progress are noted too
//! ([`temp`]), for an exit without unwinding. Holds the interrupt flag: the
//! CLI's signal handler calls [`interrupt`], and the check, on its own
//! thread, sees [`interrupted`], stops, and reports what it gathered.

use std::sync::atomic::{AtomicBool, Ordering};

mod groups;
mod temp;

pub(crate) use groups::{
    ask_first, forget_group, kill_stragglers, kill_tree, tag_group, watch_group, Group, TAG,
};
pub(crate) use temp::Temp;

/// Set once the user interrupted fib; no run starts after that.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether [`interrupt`] (or [`kill_current_run`]) has been called. No run
/// starts after that; the run in progress ends without a record (how the
/// interrupt killed it is not a finding), and the check reports what the
/// runs before it showed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Stops the check: sets the flag [`interrupted`] reads and kills the
/// process groups of the runs in progress, if any, with every descendant.
/// The check's thread notices, throws the run away and reports what it has.
/// Safe to call from a signal-handling thread; the CLI calls it on the
/// first Ctrl-C.
pub fn interrupt() {
    // First, so that whatever sees the killed processes die also sees why.
    INTERRUPTED.store(true, Ordering::SeqCst);
    groups::kill_all();
}

/// [`interrupt`], then removes the temporary directories of the run in
/// progress, for a process about to exit without unwinding (the CLI's
/// second Ctrl-C).
pub fn kill_current_run() {
    interrupt();
    temp::remove_all();
}
