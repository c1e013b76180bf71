//! FIB009: ranks called different collectives, or one collective with
//! different roots, on one communicator.

use super::Code;
use crate::model::Severity;

/// The ranks of a communicator disagree about the next collective.
pub const FIB009: Code = Code {
    code: "FIB009",
    name: "collective-mismatch",
    severity: Severity::Error,
    summary: "Ranks of one communicator called different collectives, or the same collective with different roots.",
    explanation: "\
## What it means

MPI requires all ranks of a communicator to call the same collective
operations in the same order, with the same root. In some interleaving the
ranks disagreed: one called MPI_Bcast where another called MPI_Barrier, or
two ranks passed different roots. The finding lists what each rank called
and where.

## Why it matters

Mismatched collectives are erroneous MPI. Depending on the implementation
they hang, corrupt data or crash, and the behaviour may change with the
message sizes or the number of ranks.

## Example

    if (rank == 0)
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);

## What to do

Make every rank reach the collectives of a communicator in one order, with
the root computed the same way on every rank. Move collectives out of
branches that depend on the rank.
",
};
