//! FIB029: the request of a receive freed while the receive was active.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// `MPI_Request_free` of an active receive.
pub const FIB029: Code = Code {
    code: "FIB029",
    name: "freed-active-receive",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "MPI_Request_free freed the request of a receive still in progress, so nothing tells the program when its buffer holds the message.",
    explanation: "\
## What it means

A rank called MPI_Request_free on the request of a nonblocking receive
(MPI_Irecv, or MPI_Start of a persistent receive) before any wait or test
had completed it. MPI lets the receive go on, but the program no longer
has a way to learn when the message has arrived: its buffer stays in use
by MPI for an unknown time. The finding points at MPI_Request_free and
names the receive.

A send request freed while active, a persistent request freed while
inactive and a receive from MPI_PROC_NULL are not reported: none of them
leaves a buffer that MPI may still write.

## Why it matters

Reading the buffer reads whatever is there, the message or not, depending
on timing; writing it races with MPI. The program works on one machine
and prints garbage on another. The MPI standard advises against freeing
an active receive request for this reason.

## Example

    MPI_Request req;
    MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
    printf(\"%d\\n\", x);   /* the message may not be there yet */

## What to do

Complete the receive with MPI_Wait (or MPI_Test until it says so) and
read the buffer after that; free only requests whose completion the
program learns of another way, such as sends whose receiver answers.
",
};

/// Receive requests one `MPI_Request_free` call site freed while active,
/// over the ranks and instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreedActiveReceive {
    /// The ranks that freed them there.
    pub ranks: Vec<usize>,
    /// How many.
    pub count: usize,
    /// The receives' call, such as `MPI_Irecv`, and where the first one
    /// was made.
    pub recv_call: String,
    pub recv_place: Place,
    /// Where `MPI_Request_free` was called.
    pub place: Place,
    pub replay: String,
}

impl Rule for FreedActiveReceive {
    const CODE: &'static Code = &FIB029;

    fn finding(&self) -> Finding {
        let what = format!(
            "MPI_Request_free frees the request of an {} that is still in progress",
            self.recv_call
        );
        let mut f =
            Finding::new(Self::CODE, leak_message(&self.ranks, &what, self.count)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        if let (Some(file), Some(line)) = (&self.recv_place.file, self.recv_place.line) {
            f.labels.push(Label {
                file: file.clone(),
                line,
                column: self.recv_place.column.unwrap_or(1),
                span: self.recv_place.span,
                message: format!("the {} whose buffer MPI may still write", self.recv_call),
            });
        }
        f.help = Some(format!(
            "complete the {} with MPI_Wait before using its buffer, instead of freeing its request",
            self.recv_call
        ));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_receive_and_labels_it() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: Some((10, 20)),
        };
        let f = FreedActiveReceive {
            ranks: vec![1],
            count: 1,
            recv_call: "MPI_Irecv".into(),
            recv_place: at(7),
            place: at(8),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 1: MPI_Request_free frees the request of an MPI_Irecv that is still in progress"
        );
        assert_eq!((f.line, f.rank), (Some(8), Some(1)));
        assert_eq!(f.labels.len(), 1);
        assert_eq!(f.labels[0].line, 7);
    }
}
