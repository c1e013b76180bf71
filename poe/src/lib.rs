//! The POE engine: MPI's matching rules and the exploration of a program's
//! relevant interleavings, with no I/O.
//!
//! [`engine::Engine`] is one run: it takes each rank's intercepted calls and
//! answers the ones that wait (its modules split MPI matching, causality and
//! race detection, and the path of choices the run replays). [`explore`]
//! decides which choices the next run replays: an [`explore::Strategy`],
//! either [`explore::DepthFirst`] over every relevant interleaving or
//! [`explore::Replay`] of one [`Token`], driven by [`explore::explore`].
//! [`sim`] runs straight-line programs through both without MPI, for tests
//! and for comparing POE with brute-force enumeration. [`unbuffered`]
//! decides from a completed run's trace whether its calls also complete
//! with no send buffered, so that most runs need no rerun for that.
//! [`segmented::Segmented`] holds a run's record of its calls.

#![forbid(unsafe_code)]

pub mod engine;
pub mod explore;
pub mod segmented;
pub mod sim;
pub mod unbuffered;

pub use engine::{Config, Engine, Leak, OpId, RunEnd};
pub use explore::{DepthFirst, Explorer, Replay, Strategy, Token};
