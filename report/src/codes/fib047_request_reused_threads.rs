//! FIB047: a thread puts a new request in a request variable whose last
//! request another thread completed, and nothing orders the two calls.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A nonblocking call or `MPI_Start` of one thread on a request variable
/// whose earlier request another thread's wait or test completed, with
/// nothing ordering the completion first, under `MPI_THREAD_MULTIPLE`.
pub const FIB047: Code = Code {
    code: "FIB047",
    name: "request-reused-threads",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A thread starts a new request in a variable whose active request another thread completes, and nothing orders the two calls.",
    explanation: "\
## What it means

A request may be reused (a new nonblocking call writing its handle to
the variable, or MPI_Start of a persistent request) only once the
request it held is complete. Under MPI_THREAD_MULTIPLE a rank's thread
made such a call on a request variable whose earlier request was
completed by a wait or test of another thread, and nothing the program
does (no join, mutex, barrier, critical section or end of region) orders
that completion before the new call. In this run the completion came
first; in another execution the new call comes while the old request is
still active.

fib follows the order of the rank's threads through the synchronisation
it wraps in the program's objects, so the finding does not wait for the
calls to overlap. It points at the call that reuses the variable and
labels the completion.

## Why it matters

Written over an active request, the old handle is lost: the operation it
stood for is never completed, and the other thread's wait then completes
the new request instead (or waits on a request that is not yet what it
expects), with a status that belongs to another message. Which happens
depends on timing.

## Example

    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            done = 1;
        } else {
            while (!done) ;            /* a plain flag orders nothing */
            MPI_Irecv(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        }
    }

## What to do

Give each thread its own request variables, or order the completion
before the reuse with a barrier, a mutex or a critical section around
both calls.
",
};

/// A call at one site that reuses the request variable another thread's
/// completion at another site emptied, unordered with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestReusedThreads {
    pub ranks: Vec<usize>,
    pub thread: u32,
    pub call: String,
    pub place: Place,
    pub other: u32,
    pub other_call: String,
    pub other_place: Place,
    pub replay: String,
}

impl Rule for RequestReusedThreads {
    const CODE: &'static Code = &FIB047;

    fn finding(&self) -> Finding {
        let what = format!(
            "{} on thread {} reuses a request that {} on thread {} completes, and nothing orders them",
            self.call, self.thread, self.other_call, self.other
        );
        let mut f = Finding::new(Self::CODE, leak_message(&self.ranks, &what, 1)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.label_at(
            &self.other_place,
            format!(
                "the {} of thread {} that completes the old request",
                self.other_call, self.other
            ),
        );
        f.help = Some(
            "give each thread its own request variables, or order the completion before the new call with a barrier, a mutex or a critical section".into(),
        );
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_both_threads_and_labels_the_completion() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = RequestReusedThreads {
            ranks: vec![1],
            thread: 1,
            call: "MPI_Irecv".into(),
            place: at(30),
            other: 0,
            other_call: "MPI_Wait".into(),
            other_place: at(25),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 1: MPI_Irecv on thread 1 reuses a request that MPI_Wait on thread 0 completes, and nothing orders them"
        );
        assert_eq!(f.line, Some(30));
        assert_eq!(f.labels[0].line, 25);
    }
}
