//! fib's static half: parses a program's C/C++ sources with libclang, lists
//! every MPI call site (the site table), collects static facts (barriers,
//! wildcard receives, whether the control flow reaching them depends on
//! input), and writes instrumented copies that tell the runtime which site is
//! calling.
//!
//! The site table is the key the rest of fib speaks in: the interposition
//! library reports site ids, the engine records them on every operation, and
//! the reports label the sites' spans in the user's files.

mod analyze;
mod buffers;
mod extract;
mod facts;
mod flags;
mod flow;
mod header;
mod inputs;
mod ir;
mod library;
mod rewrite;
mod symbols;
mod text;

pub use analyze::{analyze, analyze_with_errors, libclang_version, point_at_libclang, ParseError};
pub use flags::{compile_db, mpi_flags, wrapper_show, CompileCommand};
pub use header::{bare_header, preprocessed, site_header, BARE_HEADER_NAME, HEADER_NAME};
pub use rewrite::rewrite;
pub use symbols::{symbols, Symbols};
pub use text::read_source;

// The plain data the analysis produces, defined in `fib-sites` so that the
// crates that only read it need no libclang.
pub use fib_sites::{
    buffer_args, Analysis, ArgPlace, BufferArg, CallSite, Dependence, Element, Facts, Gate,
    GateKind, Input, InputGuards, InputReason, LeftOut, ProbeRow, Purpose, PurposeKind, SiteTable,
    Unit, Via, Wildcard,
};

use std::path::PathBuf;

/// What kept the analysis from running (as opposed to errors in the
/// program, which the compiler reports when the program is built).
#[derive(Debug)]
pub enum InstrumentError {
    /// libclang could not be loaded or failed to parse a file at all.
    Clang(String),
    /// A file could not be read.
    Io(PathBuf, std::io::Error),
    /// `mpicc -show` or `compile_commands.json` could not be used.
    Flags(String),
}

impl std::fmt::Display for InstrumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstrumentError::Clang(m) => write!(f, "libclang: {m}"),
            InstrumentError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            InstrumentError::Flags(m) => write!(f, "compiler flags: {m}"),
        }
    }
}

impl std::error::Error for InstrumentError {}
