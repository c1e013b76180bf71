//! FIB013: fib lost track of a run.

use super::Code;
use crate::model::Severity;

/// The scheduler received something it could not interpret.
pub const FIB013: Code = Code {
    code: "FIB013",
    name: "lost-track",
    severity: Severity::Error,
    summary: "fib's scheduler received a message from a rank that it could not interpret.",
    explanation: "\
## What it means

A rank's interposition library sent the scheduler a message that breaks the
protocol between them: a malformed frame, a second hello, or a message before
`MPI_Init`. fib cannot trust the rest of the run and stops checking the
program.

## Why it matters

This is a fault in fib, or a program that writes over the interposition
library's memory or socket (for example by closing file descriptors it did
not open).

## Example

    /* Closing every descriptor also closes fib's socket. */
    for (int fd = 3; fd < 1024; fd++)
        close(fd);

## What to do

Replay the token to reproduce it. If the program does nothing like the
example, report it to fib's developers with the program and the command.
",
};
