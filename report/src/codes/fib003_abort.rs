//! FIB003: a rank called `MPI_Abort`.

use super::common::program_stderr;
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A rank called `MPI_Abort`.
pub const FIB003: Code = Code {
    code: "FIB003",
    name: "mpi-abort",
    severity: Severity::Error,
    tool_failure: false,
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

/// A rank that called `MPI_Abort`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abort {
    pub rank: usize,
    /// The error code passed to `MPI_Abort`.
    pub error_code: i32,
    /// The call to `MPI_Abort`.
    pub place: Place,
    /// The program's standard error, as the launcher passed it on.
    pub stderr: String,
    pub replay: String,
}

impl Rule for Abort {
    const CODE: &'static Code = &FIB003;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "rank {} called MPI_Abort with error code {}",
                self.rank, self.error_code
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
    fn gives_the_error_code() {
        let f = Abort {
            rank: 2,
            error_code: 3,
            place: Place {
                file: Some("a.c".into()),
                line: Some(9),
                column: None,
                span: None,
            },
            stderr: "bad order\n".into(),
            replay: "1".into(),
        }
        .finding();
        assert_eq!(f.message, "rank 2 called MPI_Abort with error code 3");
        assert_eq!(
            (f.file.as_deref(), f.line, f.column, f.rank),
            (Some("a.c"), Some(9), None, Some(2))
        );
        assert_eq!(f.notes, vec!["bad order".to_string()]);
    }
}
