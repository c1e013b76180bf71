//! FIB023: a run that completes only because MPI buffers standard sends.

use super::common::{at_blocked_ranks, label_other_ranks};
use super::{Code, Rule};
use crate::finding::{Finding, RankState, Severity};

/// A deadlock that buffering hides.
pub const FIB023: Code = Code {
    code: "FIB023",
    name: "buffering-dependent-deadlock",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "The program completes only because MPI buffers a standard send; without buffering it deadlocks.",
    explanation: "\
## What it means

fib ran the program with MPI's usual buffering of standard sends (MPI_Send,
MPI_Isend), and the run completed. It then replayed the same calls in its
scheduler as if no send were buffered, and they deadlocked: some rank waits
in a send whose receive is only posted after a call that itself waits for
that rank. The finding shows every rank's blocked call in that replay.

fib does this for runs whose calls do not depend on timing (no wildcard
receives or probes, no polling, no MPI_Waitany or MPI_Waitsome), where the
replay is exact. `fib check --zero-buffer` explores the program without
buffering and reports the deadlock itself, with a replay token.

## Why it matters

The MPI standard lets MPI_Send block until the matching receive is posted.
Libraries buffer small messages, so the program works in tests; with larger
messages, more ranks or another MPI library the same code hangs.

## Example

    /* both ranks send first, then receive */
    MPI_Send(out, n, MPI_DOUBLE, other, 0, MPI_COMM_WORLD);
    MPI_Recv(in, n, MPI_DOUBLE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

## What to do

Exchange with MPI_Sendrecv, post the receive first with MPI_Irecv and wait
after the send, or order the calls so that one side receives before it
sends.
",
};

/// A completed run whose calls deadlock when no standard send is buffered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferingDeadlock {
    /// Every rank's state in the unbuffered rerun's deadlock, in rank order
    /// (each with the span of its call, when known).
    pub ranks: Vec<RankState>,
    /// The replay token of the buffered run.
    pub replay: String,
}

/// Placed at the first blocked rank; the other blocked ranks' calls are
/// labelled.
impl Rule for BufferingDeadlock {
    const CODE: &'static Code = &FIB023;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(Self::CODE, "");
        f.replay = Some(self.replay.clone());
        f.ranks = self.ranks.clone();
        f.help = Some(
            "check with --zero-buffer to see the deadlock; exchange with MPI_Sendrecv or nonblocking calls, or order the sends and receives so that one side receives first".into(),
        );
        let blocked = at_blocked_ranks(&mut f);
        f.message = format!(
            "deadlock without buffering: {blocked}; the program completes only because MPI buffers standard sends"
        );
        label_other_ranks(&mut f);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::rank;

    #[test]
    fn names_the_blocked_sends() {
        let f = BufferingDeadlock {
            ranks: vec![
                rank(0, "MPI_Send", Some(("a.c", 7, 5))),
                rank(1, "MPI_Send", Some(("a.c", 7, 5))),
            ],
            replay: "0".into(),
        }
        .finding();
        assert_eq!(f.message, "deadlock without buffering: rank 0 in MPI_Send, rank 1 in MPI_Send; the program completes only because MPI buffers standard sends");
        assert_eq!(
            (f.line, f.rank, f.span),
            (Some(7), Some(0), Some((705, 750)))
        );
        assert!(f.labels.is_empty());
        assert!(f
            .help
            .as_deref()
            .unwrap()
            .starts_with("check with --zero-buffer"));
    }
}
