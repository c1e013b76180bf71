//! FIB013: fib lost track of a run.

use super::{Code, Rule};
use crate::finding::{Finding, Severity};

/// The scheduler received something it could not interpret.
pub const FIB013: Code = Code {
    code: "FIB013",
    name: "lost-track",
    severity: Severity::Error,
    tool_failure: true,
    summary: "fib's scheduler received a message from a rank that it could not interpret.",
    explanation: "\
## What it means

A rank's interposition library sent the scheduler a message that breaks the
protocol between them: a malformed frame, a second hello, or a message before
`MPI_Init`. fib cannot trust the rest of the run and stops checking the
program.

## Why it matters

This is a fault in fib, or a program that writes over the interposition
library's memory or socket (for example by closing file descriptors it did
not open).

## Example

    /* Closing every descriptor also closes fib's socket. */
    for (int fd = 3; fd < 1024; fd++)
        close(fd);

## What to do

Replay the token to reproduce it. If the program does nothing like the
example, report it to fib's developers with the program and the command.
",
};

/// A run the scheduler lost track of: a rank broke the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostTrack {
    /// The rank that sent what broke the protocol, when known.
    pub rank: Option<usize>,
    /// What was wrong.
    pub message: String,
    pub replay: String,
}

impl Rule for LostTrack {
    const CODE: &'static Code = &FIB013;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!("fib lost track of the run: {}", self.message),
        );
        f.rank = self.rank;
        f.replay = Some(self.replay.clone());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_a_tool_failure() {
        let f = LostTrack {
            rank: Some(1),
            message: "a second hello".into(),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(f.message, "fib lost track of the run: a second hello");
        assert_eq!((f.rank, f.file), (Some(1), None));
        assert!(f.code.tool_failure);
    }
}
