//! FIB023: a run that completes only because MPI buffers standard sends.

use super::Code;
use crate::model::Severity;

/// A deadlock that buffering hides.
pub const FIB023: Code = Code {
    code: "FIB023",
    name: "buffering-dependent-deadlock",
    severity: Severity::Warning,
    summary: "The program completes only because MPI buffers a standard send; without buffering it deadlocks.",
    explanation: "\
## What it means

fib ran the program with MPI's usual buffering of standard sends (MPI_Send,
MPI_Isend), and the run completed. It then replayed the same calls in its
scheduler as if no send were buffered, and they deadlocked: some rank waits
in a send whose receive is only posted after a call that itself waits for
that rank. The finding shows every rank's blocked call in that replay.

fib does this for runs whose calls do not depend on timing (no wildcard
receives or probes, no polling, no MPI_Waitany or MPI_Waitsome), where the
replay is exact. `fib check --zero-buffer` explores the program without
buffering and reports the deadlock itself, with a replay token.

## Why it matters

The MPI standard lets MPI_Send block until the matching receive is posted.
Libraries buffer small messages, so the program works in tests; with larger
messages, more ranks or another MPI library the same code hangs.

## Example

    /* both ranks send first, then receive */
    MPI_Send(out, n, MPI_DOUBLE, other, 0, MPI_COMM_WORLD);
    MPI_Recv(in, n, MPI_DOUBLE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

## What to do

Exchange with MPI_Sendrecv, post the receive first with MPI_Irecv and wait
after the send, or order the calls so that one side receives before it
sends.
",
};
