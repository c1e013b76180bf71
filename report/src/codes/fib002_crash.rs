//! FIB002: a rank was killed by a signal, including an `assert` that failed.

use super::Code;
use crate::model::Severity;

/// A rank died from a fatal signal.
pub const FIB002: Code = Code {
    code: "FIB002",
    name: "crash",
    severity: Severity::Error,
    summary:
        "A rank was killed by a fatal signal (a segmentation fault, a failed assert, abort(), ...).",
    explanation: "\
## What it means

In some interleaving a rank ended with a fatal signal such as SIGSEGV, SIGBUS,
SIGFPE or SIGABRT. A failed `assert` calls abort() and shows up here too. The
finding names the signal, the rank, the last MPI call the rank made and the
program's own error output.

## Why it matters

A crash that happens only in some interleavings usually means the program
assumes an order of messages that MPI does not guarantee, for example that
the first message from MPI_ANY_SOURCE comes from a particular rank.

## Example

    MPI_Recv(&from, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    /* Holds only if rank 1 happens to send first. */
    assert(from == 1);

## What to do

Replay the interleaving with its token and look at the notes for the
program's error output. Check every assumption about which message arrives
first; use explicit sources or the status returned by the receive instead.
",
};
