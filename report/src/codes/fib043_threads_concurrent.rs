//! FIB043: two threads' MPI calls that nothing orders, under
//! `MPI_THREAD_SERIALIZED`.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// Two MPI calls of different threads that the program's synchronisation
/// leaves unordered, under a level that lets one thread at a time call.
pub const FIB043: Code = Code {
    code: "FIB043",
    name: "threads-concurrent",
    severity: Severity::Error,
    tool_failure: false,
    summary: "Two threads of a rank can be inside MPI at once under MPI_THREAD_SERIALIZED: nothing the program does orders their calls.",
    explanation: "\
## What it means

Under MPI_THREAD_SERIALIZED any thread may call MPI, but never two at
once: the program must order its threads' calls. A rank made two calls
from different threads with nothing between them that orders one
before the other: no thread creation or join, no mutex, semaphore,
condition variable or barrier, no OpenMP barrier, critical section, lock
or end of a parallel region. In some execution the two calls run at the
same time.

fib follows the order of the rank's threads as a vector clock through
the synchronisation it wraps in the program's objects (POSIX threads,
and GCC's OpenMP runtime), so the finding does not wait for the calls to
overlap: it is reported when they ran far apart too. Creation, join,
barriers and parallel regions order the same calls in every run; a lock
orders them in the order the run took it. It points at the call later in
the source and labels the other one. A program that orders its
threads only by its own atomic variables, or by a library fib does not
wrap, is taken as unordered there.

## Why it matters

A library that gives MPI_THREAD_SERIALIZED may keep its state without
locks. Two calls at once corrupt its queues and requests: messages are
lost or matched twice, and the program hangs or crashes only sometimes.

## Example

    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    #pragma omp parallel sections
    {
        #pragma omp section
        MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        #pragma omp section
        MPI_Send(&b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    }

## What to do

Order the calls (a mutex or `#pragma omp critical` around each, a
barrier between them), make them from one thread, or ask for
MPI_THREAD_MULTIPLE and check that `provided` is at least that.
",
};

/// Calls at one site that another thread's calls at another site are not
/// ordered with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadsConcurrent {
    pub ranks: Vec<usize>,
    pub thread: u32,
    pub call: String,
    pub place: Place,
    pub other: u32,
    pub other_call: String,
    pub other_place: Place,
    /// Whether the two calls ran at once in a run.
    pub overlapped: bool,
    pub replay: String,
}

impl Rule for ThreadsConcurrent {
    const CODE: &'static Code = &FIB043;

    fn finding(&self) -> Finding {
        let what = format!(
            "{} on thread {} and {} on thread {} can run at once: nothing orders them, and MPI_THREAD_SERIALIZED allows one thread in MPI at a time{}",
            self.call,
            self.thread,
            self.other_call,
            self.other,
            if self.overlapped {
                " (they did, in this run)"
            } else {
                ""
            }
        );
        let mut f = Finding::new(Self::CODE, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(
            &self.other_place,
            format!("the {} of thread {}", self.other_call, self.other),
        );
        f.help = Some(
            "order the two calls (a mutex or #pragma omp critical around each, or a barrier between them), or initialise MPI at MPI_THREAD_MULTIPLE and check `provided`".into(),
        );
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_both_threads_and_labels_the_other_call() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = ThreadsConcurrent {
            ranks: vec![0],
            thread: 1,
            call: "MPI_Send".into(),
            place: at(20),
            other: 0,
            other_call: "MPI_Recv".into(),
            other_place: at(30),
            overlapped: false,
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0: MPI_Send on thread 1 and MPI_Recv on thread 0 can run at once: nothing orders them, and MPI_THREAD_SERIALIZED allows one thread in MPI at a time"
        );
        assert_eq!(f.labels[0].line, 30);
    }
}
