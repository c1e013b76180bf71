//! FIB016: a barrier group that never ran.

use super::Code;
use crate::model::Severity;

/// No site of the barrier group ran in any explored interleaving.
pub const FIB016: Code = Code {
    code: "FIB016",
    name: "barrier-not-covered",
    severity: Severity::Note,
    summary: "No site of this barrier group ran in any explored interleaving, so fib cannot say whether it is needed.",
    explanation: "\
## What it means

The program's sources call `MPI_Barrier` here, but with the input, the
process count and the interleavings fib explored, no rank reached the call.
fib judges barriers by what they order in real runs, so it has nothing to
judge this one by: it is neither relevant nor irrelevant.

## Why it matters

A barrier that did not run may still matter with another input or another
number of ranks. Calling it irrelevant would be a guess.

## Example

    if (argc > 1 && strcmp(argv[1], \"--checkpoint\") == 0) {
        write_checkpoint(rank);
        MPI_Barrier(MPI_COMM_WORLD);  /* not run without --checkpoint */
    }

## What to do

Check the program again with an input or a process count that reaches the
barrier (program arguments after `--`, another `-n`), or with the
`fib:` directives of the source file.
",
};
