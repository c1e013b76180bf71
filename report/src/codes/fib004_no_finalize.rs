//! FIB004: a rank's process ended without calling `MPI_Finalize`.

use super::Code;
use crate::model::Severity;

/// A rank exited without `MPI_Finalize`.
pub const FIB004: Code = Code {
    code: "FIB004",
    name: "exit-without-finalize",
    severity: Severity::Error,
    summary: "A rank's process exited after MPI_Init without calling MPI_Finalize.",
    explanation: "\
## What it means

A rank returned from main or called exit() after initialising MPI, without
calling MPI_Finalize first. The finding gives the rank, its exit status and
the last MPI call it made.

## Why it matters

MPI requires every process to call MPI_Finalize. Without it, messages the
rank sent may never be delivered and other ranks can wait forever; many MPI
implementations also end the whole job with an error.

## Example

    if (rank == 1 && n == 0) {
        fprintf(stderr, \"nothing to do\\n\");
        return 1;            /* leaves without MPI_Finalize */
    }

## What to do

Call MPI_Finalize on every path that leaves the program after MPI_Init, or
MPI_Abort when the whole job must stop because of an error.
",
};
