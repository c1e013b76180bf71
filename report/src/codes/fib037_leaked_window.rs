//! FIB037: a window created by the program and never freed.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A window still alive at `MPI_Finalize`.
pub const FIB037: Code = Code {
    code: "FIB037",
    name: "leaked-window",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "A window made by MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared or MPI_Win_create_dynamic was never freed.",
    explanation: "\
## What it means

The ranks of a communicator made a window together (MPI_Win_create,
MPI_Win_allocate, MPI_Win_allocate_shared or MPI_Win_create_dynamic) and
reached MPI_Finalize without calling MPI_Win_free on it. The finding points
at the call that created it.

## Why it matters

A window holds memory that other processes may access and resources of
the MPI library (for MPI_Win_allocate and MPI_Win_allocate_shared, the
memory itself). MPI_Win_free is collective and is where the last accesses
to the window are guaranteed to be over; without it, nothing says when the
memory may be reused, and a window made in a loop exhausts the library.

## Example

    double *base;
    MPI_Win win;
    MPI_Win_allocate(n * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&x, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    MPI_Finalize();        /* win is never freed */

## What to do

Close every epoch on the window, then call MPI_Win_free on every rank of
its communicator before MPI_Finalize.
",
};

/// Windows one call site created and nothing freed, over the ranks and
/// instances that leaked there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakedWindow {
    /// The ranks that leaked there.
    pub ranks: Vec<usize>,
    /// How many windows leaked there.
    pub count: usize,
    /// The MPI function, such as `MPI_Win_allocate`.
    pub call: String,
    pub place: Place,
    pub replay: String,
}

impl Rule for LeakedWindow {
    const CODE: &'static Code = &FIB037;

    fn finding(&self) -> Finding {
        let what = format!("the window this {} creates is never freed", self.call);
        let mut f =
            Finding::new(Self::CODE, leak_message(&self.ranks, &what, self.count)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.help =
            Some("call MPI_Win_free on every rank of its communicator before MPI_Finalize".into());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_ranks_and_the_call() {
        let f = LeakedWindow {
            ranks: vec![1, 0],
            count: 2,
            call: "MPI_Win_allocate".into(),
            place: Place::default(),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "ranks 0, 1: the window this MPI_Win_allocate creates is never freed (2 times)"
        );
    }
}
