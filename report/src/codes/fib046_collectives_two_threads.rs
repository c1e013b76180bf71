//! FIB046: two threads call collectives on one communicator, and nothing
//! orders them.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// Collective calls of two threads on one communicator that the program's
/// synchronisation leaves unordered, under `MPI_THREAD_MULTIPLE`.
pub const FIB046: Code = Code {
    code: "FIB046",
    name: "collectives-two-threads",
    severity: Severity::Error,
    tool_failure: false,
    summary: "Two threads call collectives on one communicator, and nothing the program does orders the two calls.",
    explanation: "\
## What it means

MPI matches the collective calls on a communicator in the order each
process makes them, and leaves it to a multithreaded program to order
its threads' collective calls on one communicator. A rank made two
collective calls (blocking or nonblocking) on the same communicator from
different threads, with nothing between them that orders one before the
other. Which one comes first in the communicator's order is then a
matter of timing, and may differ from rank to rank.

fib follows the order of the rank's threads through the synchronisation
it wraps in the program's objects, so the finding does not wait for the
calls to collide: it is reported when they ran far apart too. It points
at the call later in the source and labels the other one.

## Why it matters

When the ranks' threads reach the two collectives in different orders,
a barrier on one rank meets a broadcast on another: the program
deadlocks, or the collectives exchange the wrong data, only sometimes.

## Example

    #pragma omp parallel sections
    {
        #pragma omp section
        MPI_Barrier(MPI_COMM_WORLD);
        #pragma omp section
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

## What to do

Make the collectives of a communicator from one thread, order them with
a barrier or a critical section, or give each thread a communicator of
its own (MPI_Comm_dup).
",
};

/// Collective calls at one site that another thread's at another site, on
/// the same communicator, are not ordered with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectivesTwoThreads {
    pub ranks: Vec<usize>,
    pub thread: u32,
    pub call: String,
    pub place: Place,
    pub other: u32,
    pub other_call: String,
    pub other_place: Place,
    pub replay: String,
}

impl Rule for CollectivesTwoThreads {
    const CODE: &'static Code = &FIB046;

    fn finding(&self) -> Finding {
        let what = format!(
            "{} on thread {} and {} on thread {} are collectives on one communicator, and nothing orders them",
            self.call, self.thread, self.other_call, self.other
        );
        let mut f = Finding::new(Self::CODE, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(
            &self.other_place,
            format!(
                "the {} of thread {} on the same communicator",
                self.other_call, self.other
            ),
        );
        f.help = Some(
            "make a communicator's collectives from one thread, order them with a barrier or critical section, or give each thread its own communicator (MPI_Comm_dup)".into(),
        );
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_both_threads_and_labels_the_other_collective() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = CollectivesTwoThreads {
            ranks: vec![0, 1],
            thread: 1,
            call: "MPI_Bcast".into(),
            place: at(21),
            other: 0,
            other_call: "MPI_Barrier".into(),
            other_place: at(17),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "ranks 0, 1: MPI_Bcast on thread 1 and MPI_Barrier on thread 0 are collectives on one communicator, and nothing orders them"
        );
        assert_eq!(f.labels[0].line, 17);
    }
}
