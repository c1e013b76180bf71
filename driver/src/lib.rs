//! Everything that touches the outside world on the way from a C file to a
//! verdict, in the order a check goes: [`discover`] the sources and their
//! flags, [`build`] the instrumented program into the cache, [`explore`] its
//! interleavings (launching `mpiexec` and serving the ranks' socket), all
//! tied together by [`check`]; [`prebuilt`] checks a program fib did not
//! build (`fib run`); [`workflow`] checks several paths with each
//! tree's [`config`] (`fib.toml`), waivers and baselines. The decisions are the pure crates': the
//! engine's ([`poe`]) while a run goes on, and [`fib_analysis`]'s on what
//! the runs showed.

pub mod build;
pub mod buildcmd;
pub mod check;
pub mod config;
pub mod database;
pub mod discover;
pub mod explore;
pub mod interpose;
pub mod mpi;
mod parses;
pub mod prebuilt;
pub mod progress;
mod symbols;
pub mod workflow;
pub mod wrap;

pub use check::{check, Options};
pub use explore::launch::{interrupt, interrupted, kill_current_run};
pub use mpi::{Mpi, Toolchain};
pub use prebuilt::run_prebuilt;
pub use progress::{Phase, Progress, Silent, Status};
pub use workflow::{check_paths, Checked, Request};

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
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriverError::Io(what, e) => write!(f, "{what}: {e}"),
            DriverError::Tool(tool, e) => write!(f, "cannot run `{tool}`: {e}"),
            DriverError::Instrument(e) => write!(f, "{e}"),
            DriverError::Input(m) => write!(f, "{m}"),
            DriverError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for DriverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DriverError::Io(_, e) | DriverError::Tool(_, e) => Some(e),
            DriverError::Instrument(e) => Some(e),
            DriverError::Input(_) | DriverError::Interrupted => None,
        }
    }
}
