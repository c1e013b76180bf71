//! FIB022: a rank finished MPI and then exited with a failing status.

use super::Code;
use crate::model::Severity;

/// A non-zero exit status after `MPI_Finalize`.
pub const FIB022: Code = Code {
    code: "FIB022",
    name: "failing-exit",
    severity: Severity::Error,
    summary: "A rank called MPI_Finalize and then exited with a status other than 0.",
    explanation: "\
## What it means

Every rank finished its MPI work, but one of them then ended the program with
a failing status: `return 1` from main, `exit(2)`, or a library that exits on
an error. The finding gives the rank, the status and the rank's last MPI call
(its MPI_Finalize). A crash after MPI_Finalize is reported as FIB002.

## Why it matters

mpiexec passes the failing status on, so job scripts and CI see the run as
failed even though the communication was correct; and the status usually
means the program itself detected a wrong result.

## Example

    MPI_Finalize();
    if (residual > tolerance) {
        fprintf(stderr, \"did not converge\\n\");
        return 1;
    }

## What to do

Read the program's own error output, shown under the finding. When the
status is intended (a failed self-check), the finding is the check doing its
job.
",
};
