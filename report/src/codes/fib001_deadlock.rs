//! FIB001: some interleaving reaches a state where no rank can make progress.

use super::Code;
use crate::model::Severity;

/// Some interleaving deadlocks.
pub const FIB001: Code = Code {
    code: "FIB001",
    name: "deadlock",
    severity: Severity::Error,
    summary: "In some interleaving every rank that has not finished is blocked in an MPI call that can never complete.",
    explanation: "\
## What it means

fib explored the program's interleavings and found one in which no MPI call
can complete: every rank that has not reached MPI_Finalize waits for a
message, a request or a collective that no other rank will ever provide. The
finding lists where each rank was blocked and gives a replay token for the
interleaving.

## Why it matters

A deadlock that depends on which sender a wildcard receive picks, or on
whether MPI buffers a standard send, may never show up in testing and then
hang a production job. If the finding says `zero-buffer`, the program relies
on MPI buffering its sends, which MPI does not promise.

## Example

    /* Rank 0 takes the first message from anyone, then insists on rank 2. */
    if (rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &st);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    /* If the wildcard takes rank 2's message, rank 1's is never received
       and rank 0 waits for rank 2 forever. */

## What to do

Run the replay token (`fib check FILE.c -n N --replay TOKEN`) to see the
interleaving again. Make every receive name a message that is certain to
arrive: replace the wildcard by explicit sources, count the messages
expected from each rank, or match sends and receives in the same order on
both sides.
",
};
