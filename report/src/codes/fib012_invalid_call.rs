//! FIB012: an MPI call with arguments MPI does not allow.

use super::Code;
use crate::model::Severity;

/// An MPI call with invalid arguments.
pub const FIB012: Code = Code {
    code: "FIB012",
    name: "invalid-call",
    severity: Severity::Error,
    summary: "An MPI call names a rank, tag, request or communicator that is not valid.",
    explanation: "\
## What it means

A rank called MPI with an argument MPI does not accept: a destination or
source rank outside the communicator, a negative tag on a send, a request
that is not active (already completed or never started), or a communicator
the rank is not a member of. fib stops the interleaving at that call.

## Why it matters

The MPI standard leaves the behaviour of such a call undefined: depending on
the library it aborts, corrupts memory or appears to work.

## Example

    /* With 2 processes, rank 2 does not exist. */
    MPI_Send(&x, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);

## What to do

Fix the argument at the reported line; for ranks, compute neighbours modulo
the communicator's size or use `MPI_PROC_NULL` at the edges.
",
};
