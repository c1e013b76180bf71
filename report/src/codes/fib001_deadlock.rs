//! FIB001: some interleaving reaches a state where no rank can make progress.

use super::common::{at_blocked_ranks, label_other_ranks};
use super::{Code, Rule};
use crate::finding::{Finding, RankState, Severity};

/// Some interleaving deadlocks.
pub const FIB001: Code = Code {
    code: "FIB001",
    name: "deadlock",
    severity: Severity::Error,
    tool_failure: false,
    summary: "In some interleaving every rank that has not finished is blocked in an MPI call that can never complete.",
    explanation: "\
## What it means

fib explored the program's interleavings and found one in which no MPI call
can complete: every rank that has not reached MPI_Finalize waits for a
message, a request or a collective that no other rank will ever provide. The
finding lists where each rank was blocked and gives a replay token for the
interleaving.

## Why it matters

A deadlock that depends on which sender a wildcard receive picks, or on
whether MPI buffers a standard send, may never show up in testing and then
hang a production job. If the finding says `zero-buffer`, the program relies
on MPI buffering its sends, which MPI does not promise.

## Example

    /* Rank 0 takes the first message from anyone, then insists on rank 2. */
    if (rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &st);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    /* If the wildcard takes rank 2's message, rank 1's is never received
       and rank 0 waits for rank 2 forever. */

## What to do

Run the replay token (`fib check FILE.c -n N --replay TOKEN`) to see the
interleaving again. Make every receive name a message that is certain to
arrive: replace the wildcard by explicit sources, count the messages
expected from each rank, or match sends and receives in the same order on
both sides.
",
};

/// A deadlock: every rank that has not finished waits in a call that can
/// never complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// Every rank's state when the run stopped, in rank order (each with
    /// the span of its call, when known).
    pub ranks: Vec<RankState>,
    /// The replay token of the interleaving.
    pub replay: String,
}

/// Placed at the first blocked rank; the other blocked ranks' calls are
/// labelled.
impl Rule for Deadlock {
    const CODE: &'static Code = &FIB001;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(Self::CODE, "");
        f.replay = Some(self.replay.clone());
        f.ranks = self.ranks.clone();
        let blocked = at_blocked_ranks(&mut f);
        f.message = format!("deadlock: {blocked}");
        label_other_ranks(&mut f);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::rank;

    #[test]
    fn names_the_blocked_ranks_and_labels_the_others() {
        let f = Deadlock {
            ranks: vec![
                rank(0, "MPI_Recv", Some(("a.c", 11, 9))),
                rank(1, "MPI_Send", Some(("a.c", 14, 5))),
                rank(2, "MPI_Finalize", Some(("a.c", 20, 5))),
            ],
            replay: "1.0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "deadlock: rank 0 in MPI_Recv, rank 1 in MPI_Send"
        );
        assert_eq!(
            (f.file.as_deref(), f.line, f.column, f.rank, f.span),
            (Some("a.c"), Some(11), Some(9), Some(0), Some((1109, 1150)))
        );
        assert_eq!(f.labels.len(), 1);
        assert_eq!(f.labels[0].message, "rank 1: MPI_Send");
        assert_eq!(
            (f.labels[0].line, f.labels[0].span),
            (14, Some((1405, 1450)))
        );
        assert_eq!(f.replay.as_deref(), Some("1.0"));
        assert_eq!(f.ranks.len(), 3);
        assert_eq!(f.help, None);
    }

    #[test]
    fn names_the_thread_of_a_rank_that_had_several() {
        let mut waiting = rank(0, "MPI_Recv", Some(("a.c", 11, 9)));
        waiting.thread = Some(1);
        let f = Deadlock {
            ranks: vec![waiting, rank(1, "MPI_Recv", Some(("a.c", 14, 5)))],
            replay: "-".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "deadlock: rank 0 (thread 1) in MPI_Recv, rank 1 in MPI_Recv"
        );
    }
}
