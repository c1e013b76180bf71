//! FIB018: a nonblocking operation no wait or test completed.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A request still active at `MPI_Finalize`.
pub const FIB018: Code = Code {
    code: "FIB018",
    name: "leaked-request",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "A nonblocking send, receive or collective was never completed by a wait or a test, or a persistent request was never freed.",
    explanation: "\
## What it means

A rank started a nonblocking operation (MPI_Isend, MPI_Issend, MPI_Irecv,
MPI_Start of a persistent request, a nonblocking collective such as
MPI_Ibarrier or MPI_Ibcast) and reached MPI_Finalize without any
MPI_Wait*, or successful MPI_Test*, completing its request, or
MPI_Request_free freeing it. The finding points at the call that started
it. A persistent request (MPI_Send_init, MPI_Recv_init, ...) that was never
freed with MPI_Request_free is reported too, at the call that made it.

## Why it matters

MPI requires every request to be completed or freed before MPI_Finalize.
Until a request completes, its buffer belongs to MPI: the program may not
reuse a send buffer or read a receive buffer. A receive request that is never
completed may not have its data yet, and each leaked request holds library
memory for the rest of the run.

## Example

    MPI_Request req;
    MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    MPI_Finalize();        /* req is never waited for */

## What to do

Complete the request with MPI_Wait (or MPI_Waitall with its siblings) before
the buffer is reused and before MPI_Finalize.
",
};

/// Requests one call site started and nothing completed, over the ranks and
/// instances that leaked there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakedRequest {
    /// The ranks that leaked there.
    pub ranks: Vec<usize>,
    /// How many requests leaked there.
    pub count: usize,
    /// The MPI function, such as `MPI_Isend`.
    pub call: String,
    /// The request is a persistent one (made by `call`, such as
    /// `MPI_Send_init`) that was never freed.
    pub persistent: bool,
    pub place: Place,
    pub replay: String,
}

impl Rule for LeakedRequest {
    const CODE: &'static Code = &FIB018;

    fn finding(&self) -> Finding {
        let what = if self.persistent {
            format!(
                "the persistent request of this {} is never freed with MPI_Request_free",
                self.call
            )
        } else {
            format!(
                "the request of this {} is never completed by a wait or test",
                self.call
            )
        };
        let mut f =
            Finding::new(Self::CODE, leak_message(&self.ranks, &what, self.count)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.help = Some(if self.persistent {
            "free it with MPI_Request_free once it is no longer started, before MPI_Finalize".into()
        } else {
            "complete it with MPI_Wait or MPI_Waitall before MPI_Finalize".into()
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_ranks_and_the_count() {
        let mut l = LeakedRequest {
            ranks: vec![0, 1, 2],
            count: 6,
            call: "MPI_Isend".into(),
            persistent: false,
            place: Place {
                file: Some("a.c".into()),
                line: Some(5),
                column: Some(3),
                span: Some((50, 60)),
            },
            replay: "0".into(),
        };
        let f = l.finding();
        assert_eq!(f.message, "ranks 0, 1, 2: the request of this MPI_Isend is never completed by a wait or test (6 times)");
        assert_eq!((f.line, f.span, f.rank), (Some(5), Some((50, 60)), None));
        assert_eq!(
            f.help.as_deref(),
            Some("complete it with MPI_Wait or MPI_Waitall before MPI_Finalize")
        );
        l.ranks = vec![1];
        l.count = 1;
        let f = l.finding();
        assert_eq!(
            f.message,
            "rank 1: the request of this MPI_Isend is never completed by a wait or test"
        );
        assert_eq!(f.rank, Some(1));
        l.persistent = true;
        l.call = "MPI_Recv_init".into();
        let f = l.finding();
        assert_eq!(
            f.message,
            "rank 1: the persistent request of this MPI_Recv_init is never freed with MPI_Request_free"
        );
        assert!(f.help.unwrap().contains("MPI_Request_free"));
    }
}
