//! FIB010: every rank is polling and no poll can ever succeed.

use super::common::{at_blocked_ranks, label_other_ranks};
use super::{Code, Rule};
use crate::finding::{Finding, RankState, Severity};

/// Polling ranks that can never make progress.
pub const FIB010: Code = Code {
    code: "FIB010",
    name: "polling-livelock",
    severity: Severity::Error,
    tool_failure: false,
    summary: "Every rank that has not finished polls with MPI_Test or MPI_Iprobe, and nothing it polls for can ever happen.",
    explanation: "\
## What it means

The remaining ranks all loop on MPI_Test, MPI_Testany, MPI_Iprobe or a
similar call, and no poll can ever succeed because no rank will send the
message or complete the operation it waits for. It is a deadlock in which
the ranks keep running instead of blocking.

## Why it matters

The job burns its allocation until it is killed from outside. Unlike a
blocked deadlock, a debugger shows every rank busy, which makes it hard to
recognise.

## Example

    MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    int done = 0;
    while (!done)
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    /* ... while rank 1 polls in the same way for a message from rank 0. */

## What to do

Treat it like a deadlock (FIB001): replay the token, find the message each
rank polls for and make sure some rank sends it before polling itself.
",
};

/// A livelock: every rank waits or polls, and no poll can succeed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Livelock {
    /// Every rank's state when the run stopped, in rank order (each with
    /// the span of its call, when known).
    pub ranks: Vec<RankState>,
    pub replay: String,
}

/// Placed at the first blocked rank; the other blocked ranks' calls are
/// labelled.
impl Rule for Livelock {
    const CODE: &'static Code = &FIB010;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            "livelock: every rank waits or polls, and no poll can ever succeed",
        );
        f.replay = Some(self.replay.clone());
        f.ranks = self.ranks.clone();
        at_blocked_ranks(&mut f);
        label_other_ranks(&mut f);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::rank;

    #[test]
    fn is_placed_like_a_deadlock() {
        let f = Livelock {
            ranks: vec![
                rank(0, "finished", None),
                rank(1, "MPI_Test", Some(("a.c", 8, 9))),
                rank(2, "MPI_Iprobe", Some(("a.c", 12, 9))),
            ],
            replay: "2".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "livelock: every rank waits or polls, and no poll can ever succeed"
        );
        assert_eq!((f.line, f.rank), (Some(8), Some(1)));
        assert_eq!(f.labels.len(), 1);
        assert_eq!(f.labels[0].message, "rank 2: MPI_Iprobe");
    }
}
