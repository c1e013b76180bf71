//! FIB014: a barrier group that can be deleted.

use super::Code;
use crate::model::Severity;

/// Deleting every site of the barrier group changes nothing.
pub const FIB014: Code = Code {
    code: "FIB014",
    name: "irrelevant-barrier",
    severity: Severity::Warning,
    summary: "These barrier sites can be deleted together: they order nothing the program's messages depend on.",
    explanation: "\
## What it means

The finding names a barrier group: the `MPI_Barrier` call sites that match
each other in some run (one site in every rank for aligned code, several for
barriers called from different branches). In every interleaving fib
explored, no wildcard receive or probe relied on the group to keep out a send
that could otherwise match it, so the program's messages can match in exactly
the same ways without it. The notes say how many interleavings and ranks the
verdict covers, and whether it holds for every input or only for the one
tested (when a branch on input decides whether a site is reached).

## Why it matters

A barrier stops every rank of its communicator until the slowest one
arrives. One that orders nothing costs that wait on every call, which in a
time loop is every iteration, and hides the real synchronisation the program
needs. Deleting only some sites of a group is wrong: the remaining ones no
longer match and the program deadlocks.

## Example

    /* Every message names its source, so nothing depends on the barrier. */
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);  /* one site of the group */
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Barrier(MPI_COMM_WORLD);  /* the other site */
    }

## What to do

Delete every site of the group together, as the `help:` line lists them, or
keep the group if it orders something outside MPI (files, timing, output).
Run `fib check --confirm` to have fib re-explore the program with the group
removed and compare. If the verdict holds only for the input tested, check
the other inputs too.
",
};
