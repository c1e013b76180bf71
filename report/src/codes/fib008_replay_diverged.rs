//! FIB008: a replayed run did not make the same MPI calls as the run it
//! replayed.

use super::Code;
use crate::model::Severity;

/// A replay did not follow the recorded run.
pub const FIB008: Code = Code {
    code: "FIB008",
    name: "replay-diverged",
    severity: Severity::Error,
    summary: "Replaying an interleaving produced different MPI calls: the program is nondeterministic in a way MPI does not explain.",
    explanation: "\
## What it means

fib explores interleavings by running the program again and replaying the
choices made so far. In this run a rank made a different MPI call, or the
same call with different arguments, than in the earlier run with the same
choices. The finding names the site where the runs parted.

## Why it matters

fib can only cover every interleaving if the program's MPI calls depend on
nothing but the messages it receives. Reading the clock, calling rand(),
using uninitialised memory or depending on the host name break that, and the
interleavings after the divergence were not explored.

## Example

    srand(time(NULL));
    if (rand() % 2)      /* a different branch on every run */
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);

## What to do

Make the program deterministic for verification: seed random generators with
a constant, initialise every variable, and keep timing out of decisions that
change which MPI calls are made.
",
};
