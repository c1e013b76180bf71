//! FIB019: a communicator created by the program and never freed.

use super::common::{leak_message, leak_rank};
use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A communicator still allocated at `MPI_Finalize`.
pub const FIB019: Code = Code {
    code: "FIB019",
    name: "leaked-communicator",
    severity: Severity::Warning,
    tool_failure: false,
    summary:
        "A communicator made by MPI_Comm_dup, MPI_Comm_split, a topology constructor or the like was never freed.",
    explanation: "\
## What it means

A rank received a new communicator from a constructor (MPI_Comm_dup,
MPI_Comm_dup_with_info, MPI_Comm_idup, MPI_Comm_idup_with_info,
MPI_Comm_split, MPI_Comm_split_type, MPI_Comm_create,
MPI_Comm_create_group, MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create,
MPI_Dist_graph_create, MPI_Dist_graph_create_adjacent) and reached
MPI_Finalize without calling MPI_Comm_free on it. The finding points at the
call that created it.

## Why it matters

Each communicator holds a context id, of which an MPI library has a limited
number (a few thousand in MPICH). A leak inside a loop or a library routine
that is called often ends in an error deep inside MPI, far from its cause.

## Example

    MPI_Comm row;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 4, rank, &row);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, row);
    MPI_Finalize();        /* row is never freed */

## What to do

Call MPI_Comm_free on the communicator once the rank no longer uses it.
MPI_COMM_NULL, which MPI_Comm_split returns for MPI_UNDEFINED and
MPI_Cart_create to the ranks outside the grid, needs no freeing.
",
};

/// Communicators one call site created and nothing freed, over the ranks
/// and instances that leaked there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakedCommunicator {
    /// The ranks that leaked there.
    pub ranks: Vec<usize>,
    /// How many communicators leaked there.
    pub count: usize,
    /// The MPI function, such as `MPI_Comm_split`.
    pub call: String,
    pub place: Place,
    pub replay: String,
}

impl Rule for LeakedCommunicator {
    const CODE: &'static Code = &FIB019;

    fn finding(&self) -> Finding {
        let what = format!("the communicator this {} creates is never freed", self.call);
        let mut f =
            Finding::new(Self::CODE, leak_message(&self.ranks, &what, self.count)).at(&self.place);
        f.rank = leak_rank(&self.ranks);
        f.replay = Some(self.replay.clone());
        f.help = Some("call MPI_Comm_free on it once it is no longer used".into());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_ranks() {
        let f = LeakedCommunicator {
            ranks: vec![1, 0],
            count: 2,
            call: "MPI_Comm_dup".into(),
            place: Place::default(),
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "ranks 0, 1: the communicator this MPI_Comm_dup creates is never freed (2 times)"
        );
        assert_eq!(
            f.help.as_deref(),
            Some("call MPI_Comm_free on it once it is no longer used")
        );
        assert_eq!((f.file, f.rank), (None, None));
    }
}
