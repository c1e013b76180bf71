//! FIB025: a ready send issued before its matching receive was posted.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A ready send whose receive the program does not post first.
pub const FIB025: Code = Code {
    code: "FIB025",
    name: "ready-send-unposted",
    severity: Severity::Error,
    tool_failure: false,
    summary: "An MPI_Rsend or MPI_Irsend was issued before the receive that matches it was posted.",
    explanation: "\
## What it means

A ready send (MPI_Rsend, MPI_Irsend) may only be started once the matching
receive has been posted at the destination. fib found a run in which a rank
issued a ready send while no receive of the destination that would take the
message was posted yet: nothing in the program's own MPI calls orders the
receive before the send. fib stops the interleaving at the send.

fib judges each ready send when the scheduler learns of it, against the
receives the destination has posted by then and not yet matched (beyond
those the sender's earlier messages on the same channel will take). A
receive ordered before the send by the program's calls (the destination
posts it, then both ranks pass a barrier, or the destination sends a
message the sender receives before its ready send) is always known by then.

## Why it matters

The MPI standard makes such a program erroneous: depending on the library,
the message is lost, the job aborts, or it appears to work (many libraries
treat a ready send as a standard one), so the bug surfaces only on another
machine or network.

## Example

    if (rank == 0) {
        MPI_Rsend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        /* nothing orders this receive before rank 0's send */
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

## What to do

Post the receive first (MPI_Irecv) and synchronise before the ready send,
for example with an MPI_Barrier or a zero-byte message from the receiver;
or use MPI_Send, which needs no posted receive.
",
};

/// A ready send issued before its receive was posted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadySendUnposted {
    pub rank: usize,
    /// The MPI function, `MPI_Rsend` or `MPI_Irsend`.
    pub call: String,
    /// The destination, as a world rank.
    pub dest: usize,
    pub place: Place,
    pub replay: String,
}

impl Rule for ReadySendUnposted {
    const CODE: &'static Code = &FIB025;

    fn finding(&self) -> Finding {
        let message = format!(
            "rank {}: {} to rank {} was issued before a matching receive was posted",
            self.rank, self.call, self.dest
        );
        let mut f = Finding::new(Self::CODE, message).at(&self.place);
        f.rank = Some(self.rank);
        f.replay = Some(self.replay.clone());
        f.help = Some(format!(
            "post the receive on rank {} and synchronise before this send, or use MPI_Send",
            self.dest
        ));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_call_and_its_destination() {
        let f = ReadySendUnposted {
            rank: 0,
            call: "MPI_Rsend".into(),
            dest: 1,
            place: Place {
                file: Some("a.c".into()),
                line: Some(7),
                column: Some(9),
                span: None,
            },
            replay: "".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "rank 0: MPI_Rsend to rank 1 was issued before a matching receive was posted"
        );
        assert_eq!((f.rank, f.line, f.column), (Some(0), Some(7), Some(9)));
        assert!(f.help.unwrap().contains("MPI_Send"));
    }
}
