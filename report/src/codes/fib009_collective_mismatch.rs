//! FIB009: ranks called different collectives, or one collective with
//! different roots, on one communicator.

use super::common::{at_rank, label_other_ranks};
use super::{Code, Rule};
use crate::finding::{Finding, RankState, Severity};

/// The ranks of a communicator disagree about the next collective.
pub const FIB009: Code = Code {
    code: "FIB009",
    name: "collective-mismatch",
    severity: Severity::Error,
    tool_failure: false,
    summary: "Ranks of one communicator called different collectives, or the same collective with different roots.",
    explanation: "\
## What it means

MPI requires all ranks of a communicator to call the same collective
operations in the same order, with the same root. In some interleaving the
ranks disagreed: one called MPI_Bcast where another called MPI_Barrier, or
two ranks passed different roots. The finding lists what each rank called
and where.

## Why it matters

Mismatched collectives are erroneous MPI. Depending on the implementation
they hang, corrupt data or crash, and the behaviour may change with the
message sizes or the number of ranks.

## Example

    if (rank == 0)
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);

## What to do

Make every rank reach the collectives of a communicator in one order, with
the root computed the same way on every rank. Move collectives out of
branches that depend on the rank.
",
};

/// Ranks of one communicator that called different collectives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectiveMismatch {
    /// The communicator, as shown: `MPI_COMM_WORLD`, `communicator #3`.
    pub comm: String,
    /// Each rank's collective call (the call is the function's name), in
    /// the order the engine gave them, each with its span when known.
    pub ranks: Vec<RankState>,
    pub replay: String,
}

/// Placed at the first rank's call; the other ranks' calls are labelled.
impl Rule for CollectiveMismatch {
    const CODE: &'static Code = &FIB009;

    fn finding(&self) -> Finding {
        let names: Vec<String> = self
            .ranks
            .iter()
            .map(|s| format!("rank {} calls {}", s.rank, s.call))
            .collect();
        let mut f = Finding::new(
            Self::CODE,
            format!("collective mismatch on {}: {}", self.comm, names.join(", ")),
        );
        f.replay = Some(self.replay.clone());
        f.ranks = self.ranks.clone();
        if let Some(s) = self.ranks.first() {
            at_rank(&mut f, s);
        }
        label_other_ranks(&mut f);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::rank;

    #[test]
    fn names_every_rank_call_and_labels_the_others() {
        let f = CollectiveMismatch {
            comm: "MPI_COMM_WORLD".into(),
            ranks: vec![
                rank(0, "MPI_Bcast", Some(("a.c", 4, 9))),
                rank(1, "MPI_Barrier", Some(("a.c", 6, 5))),
                rank(2, "MPI_Barrier", Some(("a.c", 6, 5))),
            ],
            replay: "0".into(),
        }
        .finding();
        assert_eq!(f.message, "collective mismatch on MPI_COMM_WORLD: rank 0 calls MPI_Bcast, rank 1 calls MPI_Barrier, rank 2 calls MPI_Barrier");
        assert_eq!(
            (f.line, f.column, f.rank, f.span),
            (Some(4), Some(9), Some(0), Some((409, 450)))
        );
        assert_eq!(f.labels.len(), 1);
        assert_eq!(f.labels[0].message, "ranks 1, 2: MPI_Barrier");
        assert_eq!(f.labels[0].line, 6);
    }
}
