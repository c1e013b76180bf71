//! The pure layer between exploration and report: run records in, findings
//! and barrier verdicts out (and, from the site table alone, buffers whose
//! C type does not match their datatype, [`buffer_mismatches`], and status
//! arguments written as null pointers, [`null_statuses`]). It decides how a run ended ([`Endings`]), what
//! each run shows ([`Exploration`]: failures, leaks, deadlocks that
//! buffering hides), how the barrier sites group and what the Fib pass
//! concludes about each group ([`barriers`]), and whether removing a group
//! changes what the program can do ([`confirm`]). Sites are resolved to the
//! user's source in one place ([`Resolver`]). Like the engine and the Fib
//! pass, it does no I/O: the driver feeds it what the runs produced.

#![forbid(unsafe_code)]

pub mod barriers;
mod buffers;
pub mod confirm;
mod ending;
mod exploration;
mod extents;
mod facts;
mod inputs;
mod leaks;
mod memory;
mod memrun;
mod onesided;
mod ordering;
pub mod orders;
mod params;
mod paths;
mod races;
mod record;
mod runs;
mod sites;
mod statuses;
pub mod stream;
mod structs;
mod support;
mod threads;
pub mod timeline;
mod trace;

pub use barriers::GroupVerdict;
pub use buffers::{buffer_mismatches, BufferCheck};
pub use ending::Endings;
pub use exploration::{Diverged, Exploration, Explored, Keep};
pub use facts::static_facts;
pub use paths::{lexical, shown_path};
pub use record::{
    CallThread, Ending, HandleLeak, OwnedAccess, RunRecord, StructTypeUse, ThreadIssue,
    WatchedAccesses,
};
pub use runs::build_failed;
pub use sites::{FileNames, Located, Resolver, SourceLine, Symbols, Unmatched};
pub use statuses::null_statuses;
pub use support::{unmodelled_calls, unmodelled_findings};
pub use trace::{Instance, RunTrace};
