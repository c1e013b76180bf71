//! The messages exchanged between the interposition library (one per MPI
//! rank) and fib's scheduler, and their byte encoding.
//!
//! Every message travels as a frame: a little-endian `u32` body length, then
//! the body, whose first byte says which message it is. Ranks and tags are
//! carried as `i32` in the communicator's own numbering; the special values
//! below replace the MPI library's own constants, so the scheduler never needs
//! to know which MPI implementation the program runs on.
//!
//! Up messages ([`Up`]) go from a rank to the scheduler; down messages
//! ([`Down`]) answer them. A rank sends every intercepted call as
//! [`Up::Op`]; it waits for an answer only for the calls that block (see
//! [`Op::expects_reply`]).
//!
//! Which MPI functions fib models, refuses or lets through is decided here
//! too, once, by [`support()`] over the lists [`INTERCEPTED`],
//! [`UNSUPPORTED`] and [`PASS_THROUGH`].
//!
//! The crate's modules: `site` (where a call was made, and its two wire
//! words), `ops` (the intercepted calls and the enums they are made of),
//! `messages` (the up and down messages), `codec` (their byte encoding and
//! framing), `support` (which MPI functions fib models) and [`env`](mod@env) (the
//! environment variables the scheduler passes to the ranks). Everything is
//! re-exported here, so users name `fib_wire::Op`, `fib_wire::Up`, ...

#![forbid(unsafe_code)]

mod codec;
pub mod env;
mod extents;
mod messages;
mod onesided;
mod ops;
mod site;
mod support;
mod threads;

pub use codec::{encode_call, frame, Frames, WireError, FRAME_HEADER};
pub use extents::{Memory, Overflow};
pub use messages::{Access, Down, ThreadStep, Up};
pub use onesided::{Epoch, EpochKind, RmaFault};
pub use ops::{
    Block, CollKind, FlushKind, HandleKind, Op, RmaKind, SendMode, SplitKind, WaitKind, WinFlavor,
    HANDLE_MAKERS,
};
pub use site::{module_id, Site};
pub use support::{
    one_sided, support, Support, Why, INTERCEPTED, PASS_THROUGH, THREAD_CHECKED, UNSUPPORTED,
};
pub use threads::{Level, ThreadFault, Unordered};

/// `MPI_ANY_SOURCE` or `MPI_ANY_TAG` on the wire.
pub const ANY: i32 = -1;
/// `MPI_PROC_NULL` on the wire.
pub const PROC_NULL: i32 = -2;
/// The probe of an [`Op::Mrecv`] of `MPI_MESSAGE_NO_PROC`: none.
pub const NO_PROBE: u32 = u32::MAX;
/// `MPI_UNDEFINED` as a colour of `MPI_Comm_split`, on the wire.
pub const UNDEFINED: i32 = -3;
/// `MPI_ROOT` as the root of a collective on an intercommunicator, on the
/// wire (the root process itself; the other members of its group give
/// [`PROC_NULL`], the remote group the root's rank in its group).
pub const ROOT: i32 = -4;
/// Scheduler-wide id of `MPI_COMM_WORLD`.
pub const COMM_WORLD: u32 = 0;
/// Scheduler-wide id of `MPI_COMM_SELF` (one per rank, each with one member).
pub const COMM_SELF: u32 = 1;
/// The first id the scheduler hands out for a new communicator.
pub const FIRST_USER_COMM: u32 = 2;
/// The first of the names a recorded run's rank gives the communicators
/// it makes without asking the scheduler ([`Up::Named`]); the scheduler
/// renames them to its own ids.
pub const RECORDED_COMMS: u32 = 1 << 30;
/// In [`Up::Named`]: the constructor gave the rank no communicator
/// (`MPI_COMM_NULL`).
pub const NO_COMM: u32 = u32::MAX;
/// [`Up::Took`]'s source for a receive that MPI cancelled (the program
/// asked it to, `MPI_Cancel`) instead of giving it a message.
pub const CANCELLED: u32 = u32::MAX;
/// The name an `Up::Unsupported` report gives to MPI calls from two threads
/// of a rank at once, which fib does not model.
pub const THREAD_MULTIPLE: &str = "MPI_THREAD_MULTIPLE";
