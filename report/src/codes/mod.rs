//! The finding codes: one file per code, each defining the code's name,
//! severity, one-line summary and the long explanation that `fib explain CODE`
//! prints, and its rule: a struct with the facts a finding of that code needs
//! and the [`Rule::finding`] that words it (message, notes, labels, help,
//! placement). A code is stable: once published it keeps its meaning. What
//! several rules share (the placement and labels of deadlock-like findings,
//! the program's error output, the barrier findings' common parts) is in
//! `common.rs`.

pub use crate::finding::Code;
use crate::finding::Finding;

mod common;

mod fib001_deadlock;
mod fib002_crash;
mod fib003_abort;
mod fib004_no_finalize;
mod fib005_timeout;
mod fib006_unsupported;
mod fib007_build_failed;
mod fib008_replay_diverged;
mod fib009_collective_mismatch;
mod fib010_polling_livelock;
mod fib011_exploration_cut;
mod fib012_invalid_call;
mod fib013_lost_track;
mod fib014_irrelevant_barrier;
mod fib015_relevant_barrier;
mod fib016_barrier_not_covered;
mod fib017_confirm_disagreement;
mod fib018_leaked_request;
mod fib019_leaked_communicator;
mod fib020_unreceived_message;
mod fib021_mpi_error;
mod fib022_failing_exit;
mod fib023_buffering_deadlock;
mod fib024_unused_waiver;
mod fib025_ready_send_unposted;
mod fib028_leaked_handle;
mod fib029_freed_active_request;
mod fib030_type_mismatch;
mod fib031_collective_arguments;
mod fib032_buffer_type_mismatch;
mod fib033_null_status;
mod fib034_buffer_in_use;
mod fib035_rma_epoch;
mod fib036_rma_out_of_window;
mod fib037_leaked_window;
mod fib038_window_race;
mod fib039_buffer_overflow;
mod fib040_input_dependent_call;
mod fib041_struct_layout;
mod fib042_thread_not_main;
mod fib043_threads_concurrent;
mod fib044_thread_level_unchecked;
mod fib045_request_two_threads;
mod fib046_collectives_two_threads;
mod fib047_request_reused_threads;

pub use common::{barrier_finding, program_stderr, signal_name, Inputs};
pub use fib001_deadlock::{Deadlock, FIB001};
pub use fib002_crash::{Crash, FIB002};
pub use fib003_abort::{Abort, FIB003};
pub use fib004_no_finalize::{NoFinalize, FIB004};
pub use fib005_timeout::{Timeout, FIB005};
pub use fib006_unsupported::{Scope, Unsupported, FIB006};
pub use fib007_build_failed::{BuildFailed, BuildStage, FIB007};
pub use fib008_replay_diverged::{ChoiceAt, ReplayDiverged, FIB008};
pub use fib009_collective_mismatch::{CollectiveMismatch, FIB009};
pub use fib010_polling_livelock::{Livelock, FIB010};
pub use fib011_exploration_cut::{ExplorationCut, FIB011};
pub use fib012_invalid_call::{InvalidCall, FIB012};
pub use fib013_lost_track::{LostTrack, FIB013};
pub use fib014_irrelevant_barrier::{IrrelevantBarrier, FIB014};
pub use fib015_relevant_barrier::{RelevantBarrier, RelevantByRemoval, RelevantForMemory, FIB015};
pub use fib016_barrier_not_covered::{
    BarrierNeverRuns, BarrierNotCovered, BarrierNotReached, BarrierUndecided, FIB016,
};
pub use fib017_confirm_disagreement::{ConfirmDisagreement, Observed, FIB017};
pub use fib018_leaked_request::{LeakedRequest, FIB018};
pub use fib019_leaked_communicator::{LeakedCommunicator, FIB019};
pub use fib020_unreceived_message::{UnreceivedMessage, FIB020};
pub use fib021_mpi_error::{MpiError, FIB021};
pub use fib022_failing_exit::{FailingExit, FIB022};
pub use fib023_buffering_deadlock::{BufferingDeadlock, FIB023};
pub use fib024_unused_waiver::{UnusedWaiver, FIB024};
pub use fib025_ready_send_unposted::{ReadySendUnposted, FIB025};
pub use fib028_leaked_handle::{LeakedHandle, FIB028};
pub use fib029_freed_active_request::{FreedActiveRequest, FIB029};
pub use fib030_type_mismatch::{TypeMismatch, FIB030};
pub use fib031_collective_arguments::{CollectiveArguments, FIB031};
pub use fib032_buffer_type_mismatch::{BufferTypeMismatch, FIB032};
pub use fib033_null_status::{NullStatus, FIB033};
pub use fib034_buffer_in_use::{BufferInUse, Touch, Unordered, FIB034};
pub use fib035_rma_epoch::{EpochError, FIB035};
pub use fib036_rma_out_of_window::{OutOfWindow, FIB036};
pub use fib037_leaked_window::{LeakedWindow, FIB037};
pub use fib038_window_race::{RaceAccess, WindowRace, FIB038};
pub use fib039_buffer_overflow::{BufferOverflow, FIB039};
pub use fib040_input_dependent_call::{InputDependentCall, FIB040};
pub use fib041_struct_layout::{LayoutFault, StructLayout, FIB041};
pub use fib042_thread_not_main::{ThreadNotMain, FIB042};
pub use fib043_threads_concurrent::{ThreadsConcurrent, FIB043};
pub use fib044_thread_level_unchecked::{ThreadLevelUnchecked, FIB044};
pub use fib045_request_two_threads::{RequestTwoThreads, FIB045};
pub use fib046_collectives_two_threads::{CollectivesTwoThreads, FIB046};
pub use fib047_request_reused_threads::{RequestReusedThreads, FIB047};

/// One code's rule: the facts of one finding, and how the finding is worded
/// and placed. Every code has exactly one rule type (an enum where the code
/// has several forms); the finding it makes always carries [`Rule::CODE`].
pub trait Rule {
    /// The code of the findings this rule makes.
    const CODE: &'static Code;

    /// The finding these facts make.
    fn finding(&self) -> Finding;
}

/// The section headings every explanation has, in this order.
pub const SECTIONS: [&str; 4] = [
    "## What it means",
    "## Why it matters",
    "## Example",
    "## What to do",
];

/// Every code fib can report, in code order.
pub const ALL: &[&Code] = &[
    &FIB001, &FIB002, &FIB003, &FIB004, &FIB005, &FIB006, &FIB007, &FIB008, &FIB009, &FIB010,
    &FIB011, &FIB012, &FIB013, &FIB014, &FIB015, &FIB016, &FIB017, &FIB018, &FIB019, &FIB020,
    &FIB021, &FIB022, &FIB023, &FIB024, &FIB025, &FIB028, &FIB029, &FIB030, &FIB031, &FIB032,
    &FIB033, &FIB034, &FIB035, &FIB036, &FIB037, &FIB038, &FIB039, &FIB040, &FIB041, &FIB042,
    &FIB043, &FIB044, &FIB045, &FIB046, &FIB047,
];

/// The code named `code`, ignoring case (`fib001` finds `FIB001`).
pub fn lookup(code: &str) -> Option<&'static Code> {
    let code = code.trim();
    ALL.iter()
        .copied()
        .find(|c| c.code.eq_ignore_ascii_case(code))
}
