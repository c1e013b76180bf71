//! FIB011: exploration stopped at the interleaving limit.

use super::Code;
use crate::model::Severity;

/// Exploration stopped at `--max-interleavings`.
pub const FIB011: Code = Code {
    code: "FIB011",
    name: "exploration-cut",
    severity: Severity::Warning,
    summary: "fib stopped exploring at the interleaving limit; the rest were not checked.",
    explanation: "\
## What it means

The program has more interleavings of its wildcard receives, probes and
`MPI_Waitany` calls than `--max-interleavings` allows, and fib stopped when it
reached the limit. Whatever the explored interleavings showed is reported;
the unexplored ones may hide deadlocks or crashes.

## Why it matters

A clean report after a cut is not a proof: POE only promises completeness
when it explores every interleaving.

## Example

    /* Rank 0 takes 8 messages from MPI_ANY_SOURCE, 7 senders each send
     * several: the choices multiply. */
    for (int i = 0; i < 8; i++)
        MPI_Recv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);

## What to do

Check with fewer processes or a smaller input, or raise
`--max-interleavings` if the time is affordable. Receiving from a named
source where the program does not need a wildcard also removes choices.
",
};
