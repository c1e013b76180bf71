//! FIB035: a one-sided call outside the epoch it needs, an epoch closed
//! that was never opened, or one left open.

use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// A one-sided epoch error.
pub const FIB035: Code = Code {
    code: "FIB035",
    name: "rma-epoch",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A one-sided call is made outside the epoch it needs, closes an epoch never opened, opens one twice, mixes active and passive target synchronisation, or a window is freed with an epoch open.",
    explanation: "\
## What it means

MPI's one-sided calls happen inside epochs that the program opens and
closes on a window. A rank made one of these errors:

- a communication call (MPI_Put, MPI_Get, MPI_Accumulate, MPI_Rput, ...)
  to a target with no access epoch to it open: no MPI_Win_fence before it,
  no MPI_Win_start whose group holds the target, no MPI_Win_lock of the
  target and no MPI_Win_lock_all;
- MPI_Win_unlock or MPI_Win_flush of a target the rank holds no lock on,
  MPI_Win_unlock_all without MPI_Win_lock_all, MPI_Win_flush_all outside
  any lock;
- MPI_Win_complete without MPI_Win_start, MPI_Win_wait or MPI_Win_test
  without MPI_Win_post;
- an epoch opened while the same one is open (a second MPI_Win_start
  before MPI_Win_complete, a second lock of one target);
- passive target synchronisation (locks) while an active target epoch
  (post, start, or a fence in whose epoch one-sided calls were made) is
  open on the window, or the reverse; also a lock taken after a fence
  and released before the next one, when a communication call came
  between the two fences: that call started the fence's epoch at the
  first fence, so the two epochs overlapped (reported at the closing
  fence, the first moment it is known);
- MPI_Win_free, MPI_Win_fence or MPI_Finalize while an epoch is open.

The finding names the call, the window (by the call that made it) and
what is missing or still open, with a label at each call that opened an
epoch concerned. The rank finds the error before the call reaches MPI;
fib then stops the interleaving there, as for any invalid call: what the
program would do next is undefined.

## Why it matters

The MPI standard makes these calls erroneous. MPI libraries check few of
them: depending on the library and the transport, the program hangs,
crashes inside MPI, or transfers data at a time nothing guarantees, so
that other ranks read stale or half-written memory.

## Example

    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    if (rank == 0)
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* no epoch */
    MPI_Win_free(&win);

## What to do

Open an epoch that covers the target before the call (MPI_Win_fence on
every rank, MPI_Win_start with a group holding it and a matching
MPI_Win_post at the target, or MPI_Win_lock / MPI_Win_lock_all), and close
each epoch with its own closing call (MPI_Win_complete, MPI_Win_wait,
MPI_Win_unlock, MPI_Win_unlock_all, a fence) before opening another kind,
freeing the window or finalizing.
",
};

/// A one-sided call made outside the epoch it needs, or an epoch misused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpochError {
    pub rank: usize,
    /// The call at fault, such as `MPI_Put`.
    pub call: String,
    /// The window, in words ("the window made by MPI_Win_allocate at
    /// a.c:9").
    pub window: String,
    /// What is missing or still open.
    pub problem: String,
    pub place: Place,
    /// The calls that opened the epochs concerned, with what to say of
    /// each.
    pub opened: Vec<(Place, String)>,
    pub help: String,
    pub replay: String,
}

/// The label at `at` saying `message`, if `at` is known.
pub(crate) fn label(at: &Place, message: &str) -> Option<Label> {
    match (&at.file, at.line) {
        (Some(file), Some(line)) => Some(Label {
            file: file.clone(),
            line,
            column: at.column.unwrap_or(1),
            span: at.span,
            message: message.to_string(),
        }),
        _ => None,
    }
}

impl Rule for EpochError {
    const CODE: &'static Code = &FIB035;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!("{} on {}: {}", self.call, self.window, self.problem),
        )
        .at(&self.place);
        f.rank = Some(self.rank);
        f.replay = Some(self.replay.clone());
        f.labels
            .extend(self.opened.iter().filter_map(|(at, m)| label(at, m)));
        f.help = Some(self.help.clone());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_call_the_window_and_the_opening_call() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = EpochError {
            rank: 0,
            call: "MPI_Win_free".into(),
            window: "the window made by MPI_Win_allocate at a.c:9".into(),
            problem: "the lock MPI_Win_lock took on rank 1 is still held (no MPI_Win_unlock)"
                .into(),
            place: at(14),
            opened: vec![(at(11), "the lock is taken here".into())],
            help: "close it first".into(),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "MPI_Win_free on the window made by MPI_Win_allocate at a.c:9: the lock MPI_Win_lock took on rank 1 is still held (no MPI_Win_unlock)"
        );
        assert_eq!((f.line, f.rank), (Some(14), Some(0)));
        assert_eq!(f.labels.len(), 1);
        assert_eq!(f.labels[0].line, 11);
    }
}
