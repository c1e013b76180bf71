//! FIB036: a one-sided call whose target, bytes, datatype or buffer lie
//! outside what the window allows, or a window whose memory is null or
//! shorter than declared.

use super::fib035_rma_epoch::label;
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A one-sided argument outside the window.
pub const FIB036: Code = Code {
    code: "FIB036",
    name: "rma-out-of-window",
    severity: Severity::Error,
    tool_failure: false,
    summary: "A one-sided call names a target outside the window's group or bytes outside the target's window, a null datatype or origin buffer, or a window's memory is a null pointer or shorter than declared.",
    explanation: "\
## What it means

A rank made a one-sided call whose arguments reach outside what the window
allows:

- a target rank outside the window's group (MPI_PROC_NULL is allowed);
- a target displacement and count whose bytes (displacement times the
  target's displacement unit, plus count times the extent of the target
  datatype) start before the target's window or end past its size, as
  the target declared it when the window was made;
- MPI_DATATYPE_NULL as the origin or target datatype, or a null origin
  buffer, with a nonzero count;
- MPI_Win_create (or MPI_Win_attach) given a null pointer as memory with
  a nonzero size, or memory declared longer than the process has mapped
  from its start (memory that is shorter but followed by other memory of
  the process cannot be told apart).

The finding names the call, the window (by the call that made it) and the
bytes or rank at fault. The rank finds the error before the call reaches
MPI, from every rank's window size and displacement unit exchanged when
the window was made; fib then stops the interleaving there, as for any
invalid call. Displacements into a window made by MPI_Win_create_dynamic
are addresses and are not checked.

## Why it matters

MPI does not check one-sided bounds: a put past the end of the target's
window writes into whatever memory follows it in another process, a get
reads it, and the damage shows far from its cause, or only on another
machine or transport.

## Example

    /* Each rank exposes one int; displacement 4 is past its end. */
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&x, 1, MPI_INT, 1, 4, 1, MPI_INT, win);
    MPI_Win_fence(0, win);

## What to do

Compute target displacements in units of the target's displacement unit
and keep displacement plus count within the size the target gave its
window; compute target ranks within the window's communicator; pass real
datatypes and buffers; give MPI_Win_create memory of the size it
declares.
",
};

/// A one-sided call reaching outside its window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfWindow {
    pub rank: usize,
    /// The call at fault, such as `MPI_Put`.
    pub call: String,
    /// The window, in words ("the window made by MPI_Win_allocate at
    /// a.c:9"), or what is made.
    pub window: String,
    /// What lies outside.
    pub problem: String,
    pub place: Place,
    /// The call that made the window, when it is not the one at fault.
    pub made: Option<Place>,
    pub help: String,
    pub replay: String,
}

impl Rule for OutOfWindow {
    const CODE: &'static Code = &FIB036;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!("{} on {}: {}", self.call, self.window, self.problem),
        )
        .at(&self.place);
        f.rank = Some(self.rank);
        f.replay = Some(self.replay.clone());
        if let Some(l) = self
            .made
            .as_ref()
            .and_then(|m| label(m, "the window is made here"))
        {
            f.labels.push(l);
        }
        f.help = Some(self.help.clone());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_bytes_outside() {
        let f = OutOfWindow {
            rank: 0,
            call: "MPI_Put".into(),
            window: "the window made by MPI_Win_allocate at a.c:10".into(),
            problem: "bytes 16..20 at rank 1 are outside its window of 4 bytes".into(),
            place: Place {
                file: Some("a.c".into()),
                line: Some(12),
                column: Some(20),
                span: None,
            },
            made: Some(Place {
                file: Some("a.c".into()),
                line: Some(10),
                column: Some(5),
                span: None,
            }),
            help: "keep it inside".into(),
            replay: "0".into(),
        }
        .finding();
        assert!(f.message.starts_with("MPI_Put on the window made by"));
        assert_eq!(f.labels[0].message, "the window is made here");
    }
}
