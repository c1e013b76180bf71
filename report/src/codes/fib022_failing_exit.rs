//! FIB022: a rank finished MPI and then exited with a failing status.

use super::common::program_stderr;
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A non-zero exit status after `MPI_Finalize`.
pub const FIB022: Code = Code {
    code: "FIB022",
    name: "failing-exit",
    severity: Severity::Error,
    tool_failure: false,
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

/// A rank that exited with a failing status after `MPI_Finalize`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailingExit {
    pub rank: usize,
    /// The exit status.
    pub status: i32,
    /// The rank's last MPI call (its `MPI_Finalize`), when known.
    pub place: Place,
    /// The program's standard error, as the launcher passed it on.
    pub stderr: String,
    pub replay: String,
}

impl Rule for FailingExit {
    const CODE: &'static Code = &FIB022;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "rank {} exited with status {} after MPI_Finalize",
                self.rank, self.status
            ),
        )
        .at(&self.place);
        f.rank = Some(self.rank);
        f.replay = Some(self.replay.clone());
        f.notes = program_stderr(&self.stderr);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_the_status_and_the_error_output() {
        let f = FailingExit {
            rank: 0,
            status: 1,
            place: Place {
                file: Some("a.c".into()),
                line: Some(20),
                column: Some(5),
                span: None,
            },
            stderr: "did not converge\n\n".into(),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(f.message, "rank 0 exited with status 1 after MPI_Finalize");
        assert_eq!((f.rank, f.line), (Some(0), Some(20)));
        assert_eq!(f.notes, vec!["did not converge".to_string()]);
    }
}
