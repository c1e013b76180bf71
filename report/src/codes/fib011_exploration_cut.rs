//! FIB011: exploration stopped at the interleaving limit.

use super::{Code, Rule};
use crate::finding::{Finding, Severity};

/// Exploration stopped at `--max-interleavings`.
pub const FIB011: Code = Code {
    code: "FIB011",
    name: "exploration-cut",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "fib stopped exploring at the interleaving limit; the rest were not checked.",
    explanation: "\
## What it means

The program has more interleavings of its wildcard receives, probes and
`MPI_Waitany` calls than `--max-interleavings` allows, and fib stopped when it
reached the limit. Whatever the explored interleavings showed is reported;
the unexplored ones may hide deadlocks or crashes.

## Why it matters

A clean report after a cut is not a proof: POE only promises completeness
when it explores every interleaving.

## Example

    /* Rank 0 takes 8 messages from MPI_ANY_SOURCE, 7 senders each send
     * several: the choices multiply. */
    for (int i = 0; i < 8; i++)
        MPI_Recv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);

## What to do

Check with fewer processes or a smaller input, or raise
`--max-interleavings` if the time is affordable. Receiving from a named
source where the program does not need a wildcard also removes choices.
",
};

/// Exploration that stopped at `--max-interleavings`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExplorationCut {
    /// The limit (`--max-interleavings`).
    pub max_interleavings: usize,
}

impl Rule for ExplorationCut {
    const CODE: &'static Code = &FIB011;

    fn finding(&self) -> Finding {
        Finding::new(
            Self::CODE,
            format!(
                "stopped after {} interleavings (--max-interleavings); the rest were not explored",
                self.max_interleavings
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_the_limit() {
        let f = ExplorationCut {
            max_interleavings: 50,
        }
        .finding();
        assert_eq!(
            f.message,
            "stopped after 50 interleavings (--max-interleavings); the rest were not explored"
        );
        assert_eq!((f.file, f.replay), (None, None));
    }
}
