//! FIB021: the MPI library reported an error for a call.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// An MPI call failed inside the MPI library.
pub const FIB021: Code = Code {
    code: "FIB021",
    name: "mpi-error",
    severity: Severity::Error,
    tool_failure: false,
    summary: "The MPI library raised an error for an MPI call (such as a message longer than its receive buffer).",
    explanation: "\
## What it means

A rank made an MPI call that the MPI library itself rejected, with MPI's
default error handler in place, which ends the job. Common causes are a
message longer than the receive buffer (\"Message truncated\"), an invalid
datatype, count or buffer, and a null or freed communicator. The finding
names the call, its site and rank, and the library's own error text.

fib reports errors found while the program runs under its scheduler; the
site is the rank's MPI call in progress when the library raised the error.
For a receive that completes later, in a wait, that is the wait.

## Why it matters

With MPI_ERRORS_ARE_FATAL, the default, the whole job stops. A program
that installs MPI_ERRORS_RETURN and ignores the return code would go on
with a buffer that is not what it expects.

## Example

    if (rank == 0) {
        int a[4] = {0};
        MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int b[2];
        MPI_Recv(b, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

## What to do

Read the library's error text in the finding: it names the mismatch. Make
the receive count at least the largest message that can arrive (MPI_Probe
and MPI_Get_count tell the size of a message before it is received).
",
};

/// An MPI call the MPI library itself rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MpiError {
    pub rank: usize,
    /// The MPI function in progress, when known.
    pub call: Option<String>,
    /// The library's error text (surrounding white space is left out).
    pub text: String,
    pub place: Place,
    pub replay: String,
}

impl Rule for MpiError {
    const CODE: &'static Code = &FIB021;

    fn finding(&self) -> Finding {
        let (rank, text) = (self.rank, self.text.trim());
        let message = match &self.call {
            Some(c) => format!("rank {rank}: {c} failed in the MPI library: {text}"),
            None => format!("rank {rank}: an MPI call failed in the MPI library: {text}"),
        };
        let mut f = Finding::new(Self::CODE, message).at(&self.place);
        f.rank = Some(rank);
        f.replay = Some(self.replay.clone());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_call_and_gives_the_library_text() {
        let mut e = MpiError {
            rank: 1,
            call: Some("MPI_Recv".into()),
            text: " Message truncated\n".into(),
            place: Place {
                file: Some("a.c".into()),
                line: Some(8),
                column: Some(9),
                span: None,
            },
            replay: "0".into(),
        };
        let f = e.finding();
        assert_eq!(
            f.message,
            "rank 1: MPI_Recv failed in the MPI library: Message truncated"
        );
        assert_eq!((f.rank, f.line, f.column), (Some(1), Some(8), Some(9)));
        assert!(f.notes.is_empty());
        e.call = None;
        assert_eq!(
            e.finding().message,
            "rank 1: an MPI call failed in the MPI library: Message truncated"
        );
    }
}
