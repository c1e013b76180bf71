//! FIB018: a nonblocking operation no wait or test completed.

use super::Code;
use crate::model::Severity;

/// A request still active at `MPI_Finalize`.
pub const FIB018: Code = Code {
    code: "FIB018",
    name: "leaked-request",
    severity: Severity::Warning,
    summary: "A nonblocking send or receive was never completed by a wait or a test.",
    explanation: "\
## What it means

A rank started a nonblocking operation (MPI_Isend, MPI_Issend, MPI_Irecv)
and reached MPI_Finalize without any MPI_Wait*, or successful MPI_Test*,
completing its request. The finding points at the call that started it.

## Why it matters

MPI requires every request to be completed or freed before MPI_Finalize.
Until a request completes, its buffer belongs to MPI: the program may not
reuse a send buffer or read a receive buffer. A receive request that is never
completed may not have its data yet, and each leaked request holds library
memory for the rest of the run.

## Example

    MPI_Request req;
    MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    MPI_Finalize();        /* req is never waited for */

## What to do

Complete the request with MPI_Wait (or MPI_Waitall with its siblings) before
the buffer is reused and before MPI_Finalize.
",
};
