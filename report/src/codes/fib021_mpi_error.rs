//! FIB021: the MPI library reported an error for a call.

use super::Code;
use crate::model::Severity;

/// An MPI call failed inside the MPI library.
pub const FIB021: Code = Code {
    code: "FIB021",
    name: "mpi-error",
    severity: Severity::Error,
    summary: "The MPI library raised an error for an MPI call (such as a message longer than its receive buffer).",
    explanation: "\
## What it means

A rank made an MPI call that the MPI library itself rejected, with MPI's
default error handler in place, which ends the job. Common causes are a
message longer than the receive buffer (\"Message truncated\"), an invalid
datatype, count or buffer, and a null or freed communicator. The finding
names the call, its site and rank, and the library's own error text.

fib reports errors found while the program runs under its scheduler; the
site is the rank's MPI call in progress when the library raised the error.
For a receive that completes later, in a wait, that is the wait.

## Why it matters

With MPI_ERRORS_ARE_FATAL, the default, the whole job stops. A program
that installs MPI_ERRORS_RETURN and ignores the return code would go on
with a buffer that is not what it expects.

## Example

    if (rank == 0) {
        int a[4] = {0};
        MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int b[2];
        MPI_Recv(b, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

## What to do

Read the library's error text in the finding: it names the mismatch. Make
the receive count at least the largest message that can arrive (MPI_Probe
and MPI_Get_count tell the size of a message before it is received).
",
};
