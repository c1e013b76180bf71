//! FIB005: an interleaving ran past the time limit.

use super::Code;
use crate::model::Severity;

/// An interleaving ran past the time limit.
pub const FIB005: Code = Code {
    code: "FIB005",
    name: "timeout",
    severity: Severity::Error,
    summary: "An interleaving ran past the time limit and was stopped.",
    explanation: "\
## What it means

One run of the program took longer than the time limit (`--timeout SECS`).
fib stopped it and killed all of its processes. The finding gives each rank's
state at that moment: a rank reported as `running` was computing or looping
outside MPI.

## Why it matters

A program that loops forever outside MPI cannot be told apart from one that
is merely slow, so fib cannot say whether the rest of the interleavings are
correct. The time limit applies to each interleaving, not to the whole check.

## Example

    /* Spins forever when the message it waits for never changes flag. */
    while (!flag) {
        compute_step();
    }

## What to do

If the program is simply slow, give it a smaller problem through its
arguments (`fib check FILE.c -n N -- ARGS`) or raise `--timeout`. Otherwise
replay the token and find the loop the running ranks are stuck in.
",
};
