//! FIB019: a communicator created by the program and never freed.

use super::Code;
use crate::model::Severity;

/// A communicator still allocated at `MPI_Finalize`.
pub const FIB019: Code = Code {
    code: "FIB019",
    name: "leaked-communicator",
    severity: Severity::Warning,
    summary:
        "A communicator made by MPI_Comm_dup, MPI_Comm_split or MPI_Comm_create was never freed.",
    explanation: "\
## What it means

A rank received a new communicator from MPI_Comm_dup, MPI_Comm_split or
MPI_Comm_create and reached MPI_Finalize without calling MPI_Comm_free on
it. The finding points at the call that created it.

## Why it matters

Each communicator holds a context id, of which an MPI library has a limited
number (a few thousand in MPICH). A leak inside a loop or a library routine
that is called often ends in an error deep inside MPI, far from its cause.

## Example

    MPI_Comm row;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 4, rank, &row);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, row);
    MPI_Finalize();        /* row is never freed */

## What to do

Call MPI_Comm_free on the communicator once the rank no longer uses it.
MPI_COMM_NULL, which MPI_Comm_split returns for MPI_UNDEFINED, needs no
freeing.
",
};
