//! FIB029: the request of a send or receive freed while it was active.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// `MPI_Request_free` of an active send or receive.
pub const FIB029: Code = Code {
    code: "FIB029",
    name: "freed-active-request",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "MPI_Request_free freed the request of a send or receive still in progress, so nothing tells the program when its buffer is free again or holds the message.",
    explanation: "\
## What it means

A rank called MPI_Request_free on the request of a nonblocking send or
receive (MPI_Isend, MPI_Issend, MPI_Ibsend, MPI_Irsend, MPI_Irecv, or
MPI_Start of a persistent request) before any wait or test had completed
it. MPI lets the operation go on, but the program no longer has a way to
learn when it has finished: a receive's buffer stays in use by MPI until
the message has arrived, a send's until MPI has read it. The finding
points at MPI_Request_free and names the operation.

A persistent request freed while inactive (never started, or completed by
a wait or test since its last MPI_Start) and an operation with
MPI_PROC_NULL are not reported: neither leaves a buffer that MPI may
still use.

## Why it matters

Reading a freed receive's buffer reads whatever is there, the message or
not, depending on timing; writing it races with MPI. Writing a freed
send's buffer may change the message on its way, or not, depending on
timing. The program works on one machine and sends or prints garbage on
another. The MPI standard advises against freeing an active receive
request; freeing an active send is allowed, but only safe when the
program learns in another way (a reply from the receiver) that the send
is done.

## Example

    MPI_Request req;
    MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
    printf(\"%d\\n\", x);   /* the message may not be there yet */

    MPI_Isend(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
    y = 2;                 /* MPI may not have read y yet */

## What to do

Complete the operation with MPI_Wait (or MPI_Test until it says so) and
use the buffer after that. Free an active send's request only when the
program learns of its completion another way, such as a reply from its
receiver, and leave the buffer alone until then.
",
};

/// Requests of sends or of receives that one `MPI_Request_free` call site
/// freed while active, over the ranks and instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreedActiveRequest {
    /// The ranks that freed them there.
    pub ranks: Vec<usize>,
    /// How many.
    pub count: usize,
    /// Whether the operations are sends (else receives).
    pub send: bool,
    /// The operations' call, such as `MPI_Irecv`, and where the first one
    /// was made.
    pub op_call: String,
    pub op_place: Place,
    /// Where `MPI_Request_free` was called.
    pub place: Place,
    pub replay: String,
}

impl Rule for FreedActiveRequest {
    const CODE: &'static Code = &FIB029;

    fn finding(&self) -> Finding {
        let what = format!(
            "MPI_Request_free frees the request of an {} that is still in progress",
            self.op_call
        );
        let mut f =
            Finding::new(Self::CODE, leak_message(&self.ranks, &what, self.count)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        let (access, use_) = if self.send {
            ("read", "writing")
        } else {
            ("write", "using")
        };
        if let (Some(file), Some(line)) = (&self.op_place.file, self.op_place.line) {
            f.labels.push(Label {
                file: file.clone(),
                line,
                column: self.op_place.column.unwrap_or(1),
                span: self.op_place.span,
                message: format!("the {} whose buffer MPI may still {access}", self.op_call),
            });
        }
        f.help = Some(format!(
            "complete the {} with MPI_Wait before {use_} its buffer, instead of freeing its request",
            self.op_call
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
        let f = FreedActiveRequest {
            ranks: vec![1],
            count: 1,
            send: false,
            op_call: "MPI_Irecv".into(),
            op_place: at(7),
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
