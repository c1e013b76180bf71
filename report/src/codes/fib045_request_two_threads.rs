//! FIB045: two threads complete one request, and nothing orders them.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// Waits or tests of two threads on one request variable that the
/// program's synchronisation leaves unordered, under
/// `MPI_THREAD_MULTIPLE`.
pub const FIB045: Code = Code {
    code: "FIB045",
    name: "request-two-threads",
    severity: Severity::Error,
    tool_failure: false,
    summary: "Two threads wait on or test one request, and nothing the program does orders the two calls.",
    explanation: "\
## What it means

Under MPI_THREAD_MULTIPLE threads may call MPI at once, but a request
belongs to one completion at a time: MPI makes it an error for two
threads to wait on, or test, the same request concurrently. A rank made
two completion calls (MPI_Wait, MPI_Test, and the `all`, `any` and
`some` forms) from different threads on the same request variable, with
nothing between them that orders one before the other (no join, mutex,
barrier, critical section or end of region). In some execution they run
at once.

fib follows the order of the rank's threads through the synchronisation
it wraps in the program's objects, so the finding does not wait for the
calls to overlap: when one thread's wait completed the request and the
other's found MPI_REQUEST_NULL, it is reported all the same. It points
at the call later in the source and labels the other one.

## Why it matters

Two threads waiting on one request race on the request object inside MPI
and on the variable that holds it: one of them may return a status that
belongs to no message, wait forever, or free the request under the
other's feet. Which happens depends on timing and on the MPI library.

## Example

    MPI_Irecv(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    #pragma omp parallel num_threads(2)
    MPI_Wait(&req, MPI_STATUS_IGNORE);   /* both threads */

## What to do

Let one thread complete each request (`omp single`, `omp master` with a
barrier after), or order the completions with a mutex or critical
section.
",
};

/// Completion calls at one site that another thread's at another site, on
/// the same request variable, are not ordered with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestTwoThreads {
    pub ranks: Vec<usize>,
    pub thread: u32,
    pub call: String,
    pub place: Place,
    pub other: u32,
    pub other_call: String,
    pub other_place: Place,
    pub replay: String,
}

impl Rule for RequestTwoThreads {
    const CODE: &'static Code = &FIB045;

    fn finding(&self) -> Finding {
        let what = format!(
            "{} on thread {} and {} on thread {} complete the same request, and nothing orders them",
            self.call, self.thread, self.other_call, self.other
        );
        let mut f = Finding::new(Self::CODE, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(
            &self.other_place,
            format!(
                "the {} of thread {} on the same request",
                self.other_call, self.other
            ),
        );
        f.help = Some(
            "let one thread complete the request (omp single, or omp master and a barrier after), or order the two calls with a mutex or critical section".into(),
        );
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_both_threads_and_labels_the_other_completion() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = RequestTwoThreads {
            ranks: vec![0],
            thread: 1,
            call: "MPI_Wait".into(),
            place: at(20),
            other: 0,
            other_call: "MPI_Test".into(),
            other_place: at(15),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0: MPI_Wait on thread 1 and MPI_Test on thread 0 complete the same request, and nothing orders them"
        );
        assert_eq!(f.labels[0].line, 15);
    }
}
