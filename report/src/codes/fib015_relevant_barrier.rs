//! FIB015: a barrier group that decides which send a wildcard receive gets.

use super::Code;
use crate::model::Severity;

/// The barrier group keeps a send away from a wildcard receive.
pub const FIB015: Code = Code {
    code: "FIB015",
    name: "relevant-barrier",
    severity: Severity::Note,
    summary: "This barrier orders a wildcard receive before a send that could otherwise match it; keep it.",
    explanation: "\
## What it means

In some interleaving a wildcard receive (`MPI_ANY_SOURCE` or `MPI_ANY_TAG`)
completes before a send that targets it is issued, and the only ordering
between the two passes through this barrier group. Without the group, that
send could match the receive, so the program's messages could match
differently. The finding labels the barrier, the wildcard receive and the
send, and its notes give the ordering path and the replay token of the
interleaving.

## Why it matters

The barrier is part of the program's logic: it decides which message a
wildcard receive takes. Deleting it, or moving one of its sites, changes
what the program computes or lets it deadlock.

## Example

    if (rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        /* Without the barrier the first receive could take this send. */
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

## What to do

Keep the barrier. If the ordering it gives is the one intended, a comment
saying which receive it protects helps the next reader; a specific source or
tag on the receive would say the same without the wait.
",
};
