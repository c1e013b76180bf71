//! FIB020: a message sent and never received.

use super::common::{leak_message, leak_rank, list};
use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// A send no receive ever matched.
pub const FIB020: Code = Code {
    code: "FIB020",
    name: "unreceived-message",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "A message was sent but no receive ever took it before MPI_Finalize.",
    explanation: "\
## What it means

A rank sent a message that MPI buffered, so the send returned, but no
receive on the destination matched it before every rank called
MPI_Finalize. The finding points at the send and names its destination.

## Why it matters

MPI requires every communication to be complete before MPI_Finalize; a
message left in flight is an erroneous program. It usually means a receive
was forgotten, posted with the wrong tag or communicator, or skipped on some
path. With less buffering (larger messages, another MPI library) the same
send blocks, and the program deadlocks; `fib check --zero-buffer` shows it.

A message that a matched probe (MPI_Mprobe, or MPI_Improbe that found it)
took is the probing rank's alone: only MPI_Mrecv or MPI_Imrecv with the
message handle the probe returned can receive it. When none does, the
finding says so and labels the probe.

## Example

    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    if (rank == 1 && verbose)
        MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

## What to do

Receive the message on every path, or stop sending it. Check that the tag
and communicator of the send and the receive agree. After a matched probe,
pass its message handle to MPI_Mrecv or MPI_Imrecv.
",
};

/// Messages one send site sent and no receive took, over the ranks and
/// instances that left them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnreceivedMessage {
    /// The ranks that sent them.
    pub ranks: Vec<usize>,
    /// How many messages were left.
    pub count: usize,
    /// The MPI function, such as `MPI_Send`.
    pub call: String,
    /// Their destinations (world ranks).
    pub dests: Vec<usize>,
    /// When a matched probe (`MPI_Mprobe`, `MPI_Improbe`) took the message
    /// and no `MPI_Mrecv` received it: the probe's call and where the first
    /// such probe was made.
    pub probe: Option<(String, Place)>,
    /// Whether the program called `MPI_Cancel` on such a send: fib lets a
    /// send's cancel fail (MPI does not promise it succeeds), and the
    /// message then still goes out.
    pub cancel_failed: bool,
    pub place: Place,
    pub replay: String,
}

impl Rule for UnreceivedMessage {
    const CODE: &'static Code = &FIB020;

    fn finding(&self) -> Finding {
        let mut dests = self.dests.clone();
        dests.sort_unstable();
        let mut what = format!(
            "the message this {} sends to {} is never received",
            self.call,
            list("rank", &dests)
        );
        if let Some((call, _)) = &self.probe {
            what.push_str(&format!(
                " (an {call} took it, but no MPI_Mrecv or MPI_Imrecv did)"
            ));
        }
        let mut f =
            Finding::new(Self::CODE, leak_message(&self.ranks, &what, self.count)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.help =
            Some("post a matching receive on every path, or check the tag and communicator".into());
        if self.cancel_failed {
            f.notes.push(
                "the program cancelled this send with MPI_Cancel, which fib lets fail, as MPI \
                 allows: the send then completes, and its message must still be received"
                    .into(),
            );
            f.help = Some(
                "receive the message on every path: a send's MPI_Cancel need not succeed".into(),
            );
        }
        if let Some((call, place)) = &self.probe {
            if let (Some(file), Some(line)) = (&place.file, place.line) {
                f.labels.push(Label {
                    file: file.clone(),
                    line,
                    column: place.column.unwrap_or(1),
                    span: place.span,
                    message: format!("the {call} that took the message"),
                });
            }
            f.help = Some(format!(
                "receive the message {call} returns with MPI_Mrecv or MPI_Imrecv on every path"
            ));
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sender_and_destinations() {
        let f = UnreceivedMessage {
            ranks: vec![0],
            count: 1,
            call: "MPI_Send".into(),
            dests: vec![2, 1],
            place: Place {
                file: Some("a.c".into()),
                line: Some(3),
                column: Some(9),
                span: None,
            },
            replay: "1".into(),
            probe: None,
            cancel_failed: false,
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0: the message this MPI_Send sends to ranks 1, 2 is never received"
        );
        assert_eq!(
            (f.rank, f.line, f.replay.as_deref()),
            (Some(0), Some(3), Some("1"))
        );
        assert_eq!(
            f.help.as_deref(),
            Some("post a matching receive on every path, or check the tag and communicator")
        );
    }

    #[test]
    fn a_send_cancelled_in_vain_says_the_cancel_may_fail() {
        let f = UnreceivedMessage {
            ranks: vec![1],
            count: 1,
            call: "MPI_Isend".into(),
            dests: vec![0],
            place: Place::default(),
            replay: "0".into(),
            probe: None,
            cancel_failed: true,
        }
        .finding();
        assert_eq!(f.notes.len(), 1);
        assert!(f.notes[0].starts_with("the program cancelled this send with MPI_Cancel"));
        assert_eq!(
            f.help.as_deref(),
            Some("receive the message on every path: a send's MPI_Cancel need not succeed")
        );
    }
}
