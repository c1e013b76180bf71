//! FIB012: an MPI call with arguments MPI does not allow.

use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// An MPI call with invalid arguments.
pub const FIB012: Code = Code {
    code: "FIB012",
    name: "invalid-call",
    severity: Severity::Error,
    tool_failure: false,
    summary: "An MPI call names a rank, root, tag, count, datatype, request or communicator that is not valid.",
    explanation: "\
## What it means

A rank called MPI with an argument MPI does not accept: a destination or
source rank outside the communicator (MPI_PROC_NULL is always allowed,
MPI_ANY_SOURCE on receives and probes), a collective's root outside the
communicator, a negative tag (MPI_ANY_TAG is allowed on receives and
probes) or one above the MPI_TAG_UB attribute, a negative count,
MPI_DATATYPE_NULL, MPI_COMM_NULL, MPI_OP_NULL, a request that is not
active (already completed or never started), a communicator the rank is
not a member of, or a request variable that still holds an active
request when a call (MPI_Isend, MPI_Irecv, ...) writes its new request
into it: the active one could then never be completed (the finding names
the call that made it). fib stops the interleaving at that call; the
interposition library checks the arguments it can judge alone before the
call reaches MPI, so the finding names the call rather than an error
from inside the MPI library, or nothing at all where the library does
not check. When several ranks make such calls at once, fib lets the
others reach theirs (for half a second at most) and names the lowest
rank's, so that the finding does not change from run to run.

## Why it matters

The MPI standard leaves the behaviour of such a call undefined: depending on
the library it aborts, corrupts memory or appears to work.

## Example

    /* With 2 processes, rank 2 does not exist. */
    MPI_Send(&x, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);

## What to do

Fix the argument at the reported line; for ranks, compute neighbours modulo
the communicator's size or use `MPI_PROC_NULL` at the edges; a rank that
got MPI_COMM_NULL from MPI_Comm_split (colour MPI_UNDEFINED) must not use
it; keep tags between 0 and the MPI_TAG_UB attribute (at least 32767);
complete a request (MPI_Wait, MPI_Test) before its variable takes
another, or keep one variable per request in flight.
",
};

/// An MPI call with arguments MPI does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidCall {
    pub rank: usize,
    /// What is wrong with the call, as the engine says it.
    pub message: String,
    pub place: Place,
    /// An earlier call the invalid one concerns, and what to say of it
    /// (the call that made the active request a new one would overwrite).
    pub earlier: Option<(Place, String)>,
    pub replay: String,
}

impl Rule for InvalidCall {
    const CODE: &'static Code = &FIB012;

    fn finding(&self) -> Finding {
        let mut f =
            Finding::new(Self::CODE, format!("invalid MPI call: {}", self.message)).at(&self.place);
        f.rank = Some(self.rank);
        f.replay = Some(self.replay.clone());
        if let Some((at, message)) = &self.earlier {
            if let (Some(file), Some(line)) = (&at.file, at.line) {
                f.labels.push(Label {
                    file: file.clone(),
                    line,
                    column: at.column.unwrap_or(1),
                    span: at.span,
                    message: message.clone(),
                });
            }
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_is_invalid() {
        let f = InvalidCall {
            rank: 1,
            message: "destination 2 is not a rank of MPI_COMM_WORLD".into(),
            place: Place {
                file: Some("a.c".into()),
                line: Some(6),
                column: Some(5),
                span: None,
            },
            earlier: None,
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "invalid MPI call: destination 2 is not a rank of MPI_COMM_WORLD"
        );
        assert_eq!((f.line, f.column, f.rank), (Some(6), Some(5), Some(1)));
    }
}
