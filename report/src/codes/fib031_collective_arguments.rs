//! FIB031: the members of one collective disagree on its datatype, count or
//! reduction operation.

use super::common::list;
use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// A collective whose members give different datatypes, counts or
/// operations.
pub const FIB031: Code = Code {
    code: "FIB031",
    name: "collective-arguments",
    severity: Severity::Error,
    tool_failure: false,
    summary: "The ranks of one collective call give it different datatypes, counts or reduction operations.",
    explanation: "\
## What it means

The ranks of a communicator met in the same collective call, blocking or
nonblocking, but not with the arguments MPI requires to agree:

- an MPI_Bcast, MPI_Allgather or MPI_Alltoall whose ranks name different
  datatypes or element counts (the receive's, for the last two), an
  MPI_Allgatherv whose ranks give different recvcounts;
- an MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan, MPI_Reduce_scatter
  or MPI_Reduce_scatter_block whose ranks also name different predefined
  reduction operations;
- an MPI_Gather or MPI_Gatherv in which a rank sends another datatype or
  count than the root receives from it (its recvcount, or its
  recvcounts[i]), an MPI_Scatter or MPI_Scatterv in which a rank receives
  another than the root sends it (the root's own block, often
  MPI_IN_PLACE, is not compared). A root that gives the counts by rank
  shows them all (recvcounts [1, 2, 3]);
- an MPI_Alltoallv or MPI_Alltoallw in which a rank's block for rank j
  (its sendcounts[j] of its sendtype, or sendtypes[j]) is not rank j's
  block from it (recvcounts[i] of recvtype, or recvtypes[i]); with
  MPI_IN_PLACE the receive arguments stand for both;
- a neighbourhood collective (MPI_Neighbor_allgather, _allgatherv,
  _alltoall, _alltoallv, _alltoallw) in which a rank's block for a
  neighbour is not that neighbour's block from it, the neighbours being
  the topology's in MPI's order: on a Cartesian topology the source and
  destination of MPI_Cart_shift by 1 in each dimension (a block sent to
  the destination is the destination's block from its source), on a
  graph MPI_Graph_neighbors, on a distributed graph its destinations and
  sources. These show the first pair of blocks that differ: rank 0 sends
  3 MPI_INT to rank 2, rank 2 receives 2 MPI_INT from rank 0.

All of these hold for the nonblocking forms too (MPI_Iallreduce's
operation, MPI_Ialltoallv's blocks ...). Datatypes are compared by the
predefined datatype they are built from (see FIB030), and counts in
elements of it, so that 2 MPI_INT and one contiguous type of 2 MPI_INT
agree; a datatype that mixes several by its whole type signature
([(MPI_INT,2),(MPI_DOUBLE,1)] x 2), which every member must give alike.
Not compared: user-defined operations, MPI_BYTE and MPI_PACKED, and
collectives on an intercommunicator (whose members give counts and roots
by group). Ranks that call different collectives, or give a different
root, are FIB009. The finding points at the first rank's call and labels
each other rank's with its value. fib stops the interleaving there.

## Why it matters

MPI requires every rank of a collective to give the same type signature
(and operation, and root). MPI libraries do not check it: depending on the
algorithm the call hangs, fails with a truncation error on some ranks, or
completes with wrong results on some of them.

## Example

    /* Rank 0 sums, the others take the maximum. */
    MPI_Allreduce(&x, &y, 1, MPI_INT, rank == 0 ? MPI_SUM : MPI_MAX,
                  MPI_COMM_WORLD);

## What to do

Give every rank the same datatype, count and operation; compute a value
that differs per rank before the call, not in its arguments.
",
};

/// The members of one collective that disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectiveArguments {
    /// The collective, such as `MPI_Allreduce`.
    pub call: String,
    /// What differs: `datatype`, `count` or `operation`.
    pub what: String,
    /// Each member: rank, its value, where it called.
    pub members: Vec<(usize, String, Place)>,
    pub replay: String,
}

impl Rule for CollectiveArguments {
    const CODE: &'static Code = &FIB031;

    fn finding(&self) -> Finding {
        // The values, each with the ranks that gave it, in rank order of
        // their first rank.
        let mut by_value: Vec<(String, Vec<usize>)> = Vec::new();
        let mut members = self.members.clone();
        members.sort_by_key(|m| m.0);
        for (rank, value, _) in &members {
            match by_value.iter_mut().find(|(v, _)| v == value) {
                Some((_, ranks)) => ranks.push(*rank),
                None => by_value.push((value.clone(), vec![*rank])),
            }
        }
        let parts: Vec<String> = by_value
            .iter()
            .map(|(v, ranks)| format!("{} {v}", list("rank", ranks)))
            .collect();
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "the ranks of this {} give different {}s: {}",
                self.call,
                self.what,
                parts.join(", ")
            ),
        );
        if let Some((rank, _, place)) = members.first() {
            f = f.at(place);
            f.rank = Some(*rank);
        }
        // One label per other place and value, with its ranks.
        let mut labels: Vec<(&Place, &String, Vec<usize>)> = Vec::new();
        for (rank, value, place) in members.iter().skip(1) {
            if place.file.is_none() || place.line.is_none() {
                continue;
            }
            if place.file == f.file && place.line == f.line {
                continue;
            }
            match labels
                .iter_mut()
                .find(|(p, v, _)| p.line == place.line && p.file == place.file && *v == value)
            {
                Some((_, _, ranks)) => ranks.push(*rank),
                None => labels.push((place, value, vec![*rank])),
            }
        }
        for (place, value, ranks) in labels {
            f.labels.push(Label {
                file: place.file.clone().unwrap_or_default(),
                line: place.line.unwrap_or(1),
                column: place.column.unwrap_or(1),
                span: place.span,
                message: format!("{}: {value}", list("rank", &ranks)),
            });
        }
        f.replay = Some(self.replay.clone());
        // A gather's or scatter's ranks match the root's block for them.
        let name = self.call.to_ascii_lowercase();
        let rooted = |form: &str, all: &str| name.contains(form) && !name.contains(all);
        f.help = Some(if rooted("gather", "allgather") {
            format!(
                "make each rank send the {} the root receives from it in this {}",
                self.what, self.call
            )
        } else if rooted("scatter", "reduce_scatter") {
            format!(
                "make each rank receive the {} the root sends it in this {}",
                self.what, self.call
            )
        } else if name.contains("alltoallv")
            || name.contains("alltoallw")
            || name.contains("neighbor")
        {
            format!(
                "make each rank's {} for a peer the one that peer gives for it in this {}",
                self.what, self.call
            )
        } else {
            format!(
                "give every rank the same {} in this {}",
                self.what, self.call
            )
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_the_ranks_by_value() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(9),
            span: None,
        };
        let f = CollectiveArguments {
            call: "MPI_Allreduce".into(),
            what: "operation".into(),
            members: vec![
                (2, "MPI_MAX".into(), at(8)),
                (0, "MPI_SUM".into(), at(6)),
                (1, "MPI_MAX".into(), at(8)),
            ],
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "the ranks of this MPI_Allreduce give different operations: rank 0 MPI_SUM, ranks 1, 2 MPI_MAX"
        );
        assert_eq!((f.line, f.rank), (Some(6), Some(0)));
        assert_eq!(f.labels.len(), 1);
        assert_eq!(f.labels[0].message, "ranks 1, 2: MPI_MAX");
    }

    #[test]
    fn a_gathers_ranks_are_told_to_send_what_the_root_receives() {
        let at = |line| Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(5),
            span: None,
        };
        let f = CollectiveArguments {
            call: "MPI_Gatherv".into(),
            what: "count".into(),
            members: vec![
                (0, "recvcounts [1, 2, 3]".into(), at(9)),
                (2, "sendcount 2".into(), at(11)),
            ],
            replay: "-".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "the ranks of this MPI_Gatherv give different counts: rank 0 recvcounts [1, 2, 3], rank 2 sendcount 2"
        );
        assert_eq!(
            f.help.as_deref(),
            Some("make each rank send the count the root receives from it in this MPI_Gatherv")
        );
    }
}
