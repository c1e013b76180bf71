//! Everything that touches the outside world on the way from a C file to a
//! verdict. Its rooms, in the order a check goes:
//!
//! - `workflow`: the front door of `fib check` ([`check_paths`]): the
//!   paths or the build command the user names, each tree's `fib.toml`,
//!   waivers and baselines;
//! - `run`: one program checked: built into the cache, its interleavings
//!   explored (launching `mpiexec` and serving the ranks' socket), its
//!   barriers judged; and the front door of `fib run` ([`run_prebuilt`]);
//! - `project`: the user's project as fib reads it: discovery, the
//!   compile database, the build command and its compiler wrappers, the
//!   configuration;
//! - [`toolchain`]: the MPI implementations and the interposition library;
//! - `processes`: the process groups fib starts, their temporary
//!   directories, and the user's interrupt;
//! - `cache`: fib's cache directory and the content hash of its keys;
//! - [`settings`]: every default and every environment variable the driver
//!   reads.
//!
//! A room uses only the rooms listed after it, never one before. The
//! decisions are the pure crates': the engine's ([`poe`]) while a run goes
//! on, and [`fib_analysis`]'s on what the runs showed.

mod cache;
mod processes;
mod project;
mod run;
pub mod settings;
pub mod toolchain;
mod workflow;

pub use processes::{interrupt, interrupted, kill_current_run};
pub use project::wrap::{main as wrap_main, SUBCOMMAND as WRAP_SUBCOMMAND};
pub use run::prebuilt::{run_prebuilt, unseen_memory, Prebuilt};
pub use run::progress::{Phase, Progress, Silent, Status};
pub use workflow::{apply_baseline, check_paths, read_baseline, write_baseline, Checked, Request};

/// What kept the driver from doing its job (as opposed to what it found
/// wrong with the program, which is a finding).
#[derive(Debug)]
pub enum DriverError {
    /// A file-system or socket operation failed.
    Io(String, std::io::Error),
    /// An external tool (compiler, launcher) could not be started.
    Tool(String, std::io::Error),
    /// The static analysis could not run.
    Instrument(instrument::InstrumentError),
    /// The path given cannot be checked.
    Input(String),
    /// The user interrupted fib before the work in progress gave anything
    /// to report (the program is then listed as not checked).
    Interrupted,
    /// A recorded run met what it cannot follow (the call named, or a
    /// choice it cannot force): the program is checked with the scheduler
    /// instead.
    Unrecorded(String),
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriverError::Io(what, e) => write!(f, "{what}: {e}"),
            DriverError::Tool(tool, e) => write!(f, "cannot run `{tool}`: {e}"),
            DriverError::Instrument(e) => write!(f, "{e}"),
            DriverError::Input(m) => write!(f, "{m}"),
            DriverError::Interrupted => write!(f, "interrupted"),
            DriverError::Unrecorded(m) => write!(f, "a recorded run cannot follow {m}"),
        }
    }
}

impl std::error::Error for DriverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DriverError::Io(_, e) | DriverError::Tool(_, e) => Some(e),
            DriverError::Instrument(e) => Some(e),
            DriverError::Input(_) | DriverError::Interrupted | DriverError::Unrecorded(_) => None,
        }
    }
}
