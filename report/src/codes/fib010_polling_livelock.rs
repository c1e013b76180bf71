//! FIB010: every rank is polling and no poll can ever succeed.

use super::Code;
use crate::model::Severity;

/// Polling ranks that can never make progress.
pub const FIB010: Code = Code {
    code: "FIB010",
    name: "polling-livelock",
    severity: Severity::Error,
    summary: "Every rank that has not finished polls with MPI_Test or MPI_Iprobe, and nothing it polls for can ever happen.",
    explanation: "\
## What it means

The remaining ranks all loop on MPI_Test, MPI_Testany, MPI_Iprobe or a
similar call, and no poll can ever succeed because no rank will send the
message or complete the operation it waits for. It is a deadlock in which
the ranks keep running instead of blocking.

## Why it matters

The job burns its allocation until it is killed from outside. Unlike a
blocked deadlock, a debugger shows every rank busy, which makes it hard to
recognise.

## Example

    MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    int done = 0;
    while (!done)
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    /* ... while rank 1 polls in the same way for a message from rank 0. */

## What to do

Treat it like a deadlock (FIB001): replay the token, find the message each
rank polls for and make sure some rank sends it before polling itself.
",
};
