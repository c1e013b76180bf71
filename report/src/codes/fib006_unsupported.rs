//! FIB006: the program called an MPI function fib does not model.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// The program used an MPI function fib does not model.
pub const FIB006: Code = Code {
    code: "FIB006",
    name: "unsupported-mpi-call",
    severity: Severity::Error,
    tool_failure: false,
    summary:
        "The program called an MPI function that fib does not model, so it could not be verified.",
    explanation: "\
## What it means

The program called an MPI function that communicates, matches messages or
creates communicators in a way fib's scheduler does not model yet, such as
MPI_Bsend, persistent requests, MPI_Gatherv or one-sided communication. fib
stopped that run rather than let the call through, because the call would
have made the scheduler's picture of the program wrong.

## Why it matters

fib cannot tell anything about a program it cannot model: this is a limit of
fib, not a bug in the program. fib exits with code 2.

## Example

    MPI_Bsend(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD);   /* not modelled */

## What to do

Check the list of supported functions in the README. Where the program has a
choice, use a modelled function (MPI_Send instead of MPI_Bsend, MPI_Gather
instead of MPI_Gatherv with equal counts) to verify the rest of the logic.
",
};

/// A call to an MPI function fib does not model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub rank: usize,
    /// The MPI function, such as `MPI_Bsend`.
    pub call: String,
    pub place: Place,
    pub replay: String,
}

impl Rule for Unsupported {
    const CODE: &'static Code = &FIB006;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!("{} is not supported by fib yet", self.call),
        )
        .at(&self.place);
        f.rank = Some(self.rank);
        f.replay = Some(self.replay.clone());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_function() {
        let f = Unsupported {
            rank: 0,
            call: "MPI_Bsend".into(),
            place: Place {
                file: Some("a.c".into()),
                line: Some(3),
                column: Some(1),
                span: Some((30, 40)),
            },
            replay: "0".into(),
        }
        .finding();
        assert_eq!(f.message, "MPI_Bsend is not supported by fib yet");
        assert_eq!((f.line, f.span, f.rank), (Some(3), Some((30, 40)), Some(0)));
    }
}
