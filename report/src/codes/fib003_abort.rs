//! FIB003: a rank called `MPI_Abort`.

use super::Code;
use crate::model::Severity;

/// A rank called `MPI_Abort`.
pub const FIB003: Code = Code {
    code: "FIB003",
    name: "mpi-abort",
    severity: Severity::Error,
    summary: "A rank called MPI_Abort, which ends the whole job.",
    explanation: "\
## What it means

In some interleaving a rank called MPI_Abort. The finding gives the rank, the
site of the call and the error code it passed.

## Why it matters

Programs call MPI_Abort when they detect something they cannot handle. If it
happens only in some interleavings, the program's own checks have found an
order of messages its author did not expect.

## Example

    MPI_Recv(buf, n, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    if (st.MPI_SOURCE != expected)
        MPI_Abort(MPI_COMM_WORLD, 1);

## What to do

Replay the interleaving with its token and read the condition that led to
the abort. Either make the program handle every order MPI allows, or make
the order certain by naming the source of the receive.
",
};
