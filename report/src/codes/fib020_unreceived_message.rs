//! FIB020: a message sent and never received.

use super::Code;
use crate::model::Severity;

/// A send no receive ever matched.
pub const FIB020: Code = Code {
    code: "FIB020",
    name: "unreceived-message",
    severity: Severity::Warning,
    summary: "A message was sent but no receive ever took it before MPI_Finalize.",
    explanation: "\
## What it means

A rank sent a message that MPI buffered, so the send returned, but no
receive on the destination matched it before every rank called
MPI_Finalize. The finding points at the send and names its destination.

## Why it matters

MPI requires every communication to be complete before MPI_Finalize; a
message left in flight is an erroneous program. It usually means a receive
was forgotten, posted with the wrong tag or communicator, or skipped on some
path. With less buffering (larger messages, another MPI library) the same
send blocks, and the program deadlocks; `fib check --zero-buffer` shows it.

## Example

    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    if (rank == 1 && verbose)
        MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

## What to do

Receive the message on every path, or stop sending it. Check that the tag
and communicator of the send and the receive agree.
",
};
