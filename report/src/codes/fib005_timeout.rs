//! FIB005: an interleaving ran past the time limit.

use super::common::at_rank;
use super::{Code, Rule};
use crate::finding::{Finding, RankState, Severity};

/// An interleaving ran past the time limit.
pub const FIB005: Code = Code {
    code: "FIB005",
    name: "timeout",
    severity: Severity::Error,
    tool_failure: false,
    summary: "An interleaving ran past the time limit and was stopped.",
    explanation: "\
## What it means

One run of the program took longer than the time limit (`--timeout SECS`).
fib stopped it and killed all of its processes. The finding gives each rank's
state at that moment: a rank reported as `running` had been released by fib
from its last MPI call and was computing or looping, or was still inside
MPI completing that call (fib lets the real operation finish there).

## Why it matters

A program that loops forever outside MPI cannot be told apart from one that
is merely slow, so fib cannot say whether the rest of the interleavings are
correct. The time limit applies to each interleaving, not to the whole check.

## Example

    /* Spins forever when the message it waits for never changes flag. */
    while (!flag) {
        compute_step();
    }

## What to do

If the program is simply slow, give it a smaller problem through its
arguments (`fib check FILE.c -n N -- ARGS`) or raise `--timeout`. Otherwise
replay the token and find the loop the running ranks are stuck in.
",
};

/// An interleaving that ran past the time limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// Every rank's state when the run was stopped (`running` for a rank
    /// outside MPI), each with the span of its place when known.
    pub ranks: Vec<RankState>,
    /// The last MPI call of the first running rank, which fib had released
    /// it from.
    pub last: Option<String>,
    pub replay: String,
}

/// Placed at the first rank that was running outside MPI, if any.
impl Rule for Timeout {
    const CODE: &'static Code = &FIB005;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            "the program ran past the time limit (--timeout)",
        );
        f.replay = Some(self.replay.clone());
        f.ranks = self.ranks.clone();
        if let Some(s) = self.ranks.iter().find(|s| s.call == "running") {
            at_rank(&mut f, s);
            let last = match &self.last {
                Some(c) => format!("its {c}"),
                None => "its last MPI call".to_string(),
            };
            f.message.push_str(&format!(
                "; rank {} was running, released by fib from {last} (computing, or still inside MPI completing that call)",
                s.rank
            ));
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::rank;

    #[test]
    fn points_at_the_rank_that_was_computing() {
        let mut t = Timeout {
            ranks: vec![
                rank(0, "MPI_Recv", Some(("a.c", 5, 3))),
                rank(1, "running", Some(("a.c", 9, 7))),
            ],
            last: Some("MPI_Waitall".into()),
            replay: "0".into(),
        };
        let f = t.finding();
        assert_eq!(
            f.message,
            "the program ran past the time limit (--timeout); rank 1 was running, released by fib from its MPI_Waitall (computing, or still inside MPI completing that call)"
        );
        assert_eq!(
            (f.line, f.column, f.rank, f.span),
            (Some(9), Some(7), Some(1), Some((907, 950)))
        );
        assert_eq!(f.ranks.len(), 2);
        assert!(f.labels.is_empty());
        t.ranks.pop();
        let f = t.finding();
        assert_eq!(f.message, "the program ran past the time limit (--timeout)");
        assert_eq!((f.file, f.rank), (None, None));
    }
}
