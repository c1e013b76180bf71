//! FIB007: the program did not compile or link.

use super::Code;
use crate::model::Severity;

/// The program could not be built.
pub const FIB007: Code = Code {
    code: "FIB007",
    name: "build-failed",
    severity: Severity::Error,
    summary: "The program did not compile or link with the MPI compiler.",
    explanation: "\
## What it means

fib compiles the program with the MPI compiler wrapper (mpicc.mpich) before
running it. That step failed; the finding's notes hold the compiler's output.

## Why it matters

Nothing was verified. fib exits with code 2.

## Example

    #include <mpi.h>
    int main(int argc, char **argv) {
        MPI_Init(&argc, &argv)      /* missing semicolon */
        MPI_Finalize();
    }

## What to do

Read the compiler's messages in the notes and fix the program, or make sure
the MPI development files are installed (`bash scripts/setup.sh`).
",
};
