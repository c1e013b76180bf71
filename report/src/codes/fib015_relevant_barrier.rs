//! FIB015: a barrier group that decides which send a wildcard receive gets.

use super::common::{barrier_group, Inputs};
use super::{Code, Rule};
use crate::finding::Place;
use crate::finding::{Finding, Label, Severity};
use crate::model::{MemoryWitness, SiteRef, WitnessAccess, WitnessLocks, WitnessOp};

use super::fib038_window_race::{describe, RaceAccess};

/// The barrier group keeps a send away from a wildcard receive.
pub const FIB015: Code = Code {
    code: "FIB015",
    name: "relevant-barrier",
    severity: Severity::Note,
    tool_failure: false,
    summary: "This barrier orders a wildcard receive before a send that could otherwise match it, or two accesses to window memory; keep it.",
    explanation: "\
## What it means

In some interleaving a wildcard receive (`MPI_ANY_SOURCE` or `MPI_ANY_TAG`)
completes before a send that targets it is issued, and the only ordering
between the two passes through this barrier group. Without the group, that
send could match the receive, so the program's messages could match
differently. The finding labels the barrier, the wildcard receive and the
send, its notes give the ordering path, and its replay token names the
interleaving that shows it.

In a program with one-sided windows the barrier can also be what orders
two accesses to window memory: a `MPI_Put` completed before the barrier
and a load of the same bytes after it on the target. Without the group the
two would race. Or it decides which of two lock epochs on one target goes
first, when their accesses conflict (a put in one, a get of the same
element in the other) or when in the other order an access of one would
race an access the other rank makes later. The finding then names the two
accesses (with the call that completes a one-sided one), the lock epochs
when it is about their order, and the path between them.

## Why it matters

The barrier is part of the program's logic: it decides which message a
wildcard receive takes, or what a rank reads from its window. Deleting it, or moving one of its sites, changes
what the program computes or lets it deadlock.

## Example

    if (rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        /* Without the barrier the first receive could take this send. */
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }

## What to do

Keep the barrier. If the ordering it gives is the one intended, a comment
saying which receive it protects helps the next reader; a specific source or
tag on the receive would say the same without the wait.
",
};

/// A barrier group that keeps a send away from a wildcard receive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelevantBarrier {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
    pub inputs: Inputs,
    /// The wildcard receive, and the send it could match without the group
    /// (each labelled when its file, line and column are known).
    pub recv: WitnessOp,
    pub send: WitnessOp,
    /// The completes-before path from the receive to the send.
    pub path: Vec<String>,
    /// The interleaving that shows it.
    pub replay: String,
    /// A note added last (e.g. that the program fails).
    pub note: Option<String>,
}

impl Rule for RelevantBarrier {
    const CODE: &'static Code = &FIB015;

    fn finding(&self) -> Finding {
        let (recv, send) = (&self.recv, &self.send);
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "relevant barrier: it keeps rank {}'s {} away from rank {}'s wildcard {}",
                send.rank, send.call, recv.rank, recv.call
            ),
        );
        barrier_group(&mut f, &self.group);
        for (op, what) in [
            (recv, format!("wildcard receive (rank {})", recv.rank)),
            (
                send,
                format!(
                    "send (rank {}) this receive could match without the barrier",
                    send.rank
                ),
            ),
        ] {
            if let (Some(file), Some(line), Some(column)) = (&op.file, op.line, op.column) {
                f.labels.push(Label {
                    file: file.clone(),
                    line,
                    column,
                    span: op.span,
                    message: what,
                });
            }
        }
        f.notes = vec![
            self.inputs.note(),
            format!("ordering: {}", self.path.join(" → ")),
        ];
        f.replay = Some(self.replay.clone());
        f.notes.extend(self.note.clone());
        f
    }
}

/// A barrier group that orders memory: without it two accesses would race,
/// or two lock epochs whose accesses conflict could be granted the other
/// way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelevantForMemory {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
    pub inputs: Inputs,
    /// The two accesses (for a lock order, the conflicting accesses of the
    /// epoch granted first and of the one granted after it).
    pub kind: MemoryWitness,
    pub first: WitnessAccess,
    pub second: WitnessAccess,
    /// The lock epochs whose order it fixes, for the lock-order kinds.
    pub locks: Option<WitnessLocks>,
    /// The order from the first to the second through the barrier.
    pub path: Vec<String>,
    /// The interleaving that shows it.
    pub replay: String,
    /// A note added last (e.g. that the program fails).
    pub note: Option<String>,
}

fn race_access(a: &WitnessAccess) -> RaceAccess {
    RaceAccess {
        rank: a.rank,
        what: a.what.clone(),
        target: a.target,
        offset: a.offset,
        len: a.len,
        place: Place {
            file: a.file.clone(),
            line: a.line,
            column: a.column,
            span: a.span,
        },
        completed_by: None,
        buffer: a.buffer,
    }
}

impl Rule for RelevantForMemory {
    const CODE: &'static Code = &FIB015;

    fn finding(&self) -> Finding {
        let (first, second) = (race_access(&self.first), race_access(&self.second));
        // An access and the call that completes it: "MPI_Put ... (completed
        // by MPI_Win_unlock at ...)", "MPI_Irecv ... (its receive buffer,
        // completed by MPI_Wait at ...)".
        let done = |a: &WitnessAccess| {
            let text = describe(&race_access(a));
            match &a.completed_by {
                Some(c) => match text.strip_suffix(')') {
                    Some(open) if a.buffer.is_some() => format!("{open}, completed by {c})"),
                    _ => format!("{text} (completed by {c})"),
                },
                None => text,
            }
        };
        // The epochs: "rank 0's lock epoch on rank 1's window comes before
        // rank 2's".
        let epochs = |l: &WitnessLocks| {
            format!(
                "it makes rank {}'s lock epoch on rank {}'s window come before rank {}'s",
                l.first.rank, l.target, l.second.rank
            )
        };
        let message = match (self.kind, &self.locks) {
            (MemoryWitness::LockOrder, Some(l)) => format!(
                "relevant barrier: {}, and their accesses conflict: {} and {}",
                epochs(l),
                describe(&first),
                describe(&second)
            ),
            (MemoryWitness::RaceInOtherOrder, Some(l)) => format!(
                "relevant barrier: {}; in the other order {} would race {}",
                epochs(l),
                done(&self.first),
                describe(&second)
            ),
            _ => format!(
                "relevant barrier: it keeps {} from racing {}",
                done(&self.first),
                describe(&second)
            ),
        };
        let mut f = Finding::new(Self::CODE, message);
        barrier_group(&mut f, &self.group);
        let (a, b) = match self.kind {
            MemoryWitness::LockOrder => (
                format!("in the lock epoch granted first (rank {})", first.rank),
                format!(
                    "in the lock epoch granted after it (rank {}); without the barrier it could go first",
                    second.rank
                ),
            ),
            MemoryWitness::RaceInOtherOrder => (
                done(&self.first),
                format!(
                    "{}, which would race if the other epoch went first",
                    done(&self.second)
                ),
            ),
            MemoryWitness::Race => (
                done(&self.first),
                format!("{}, which would race without the barrier", done(&self.second)),
            ),
        };
        if self.kind == MemoryWitness::RaceInOtherOrder {
            if let Some(l) = &self.locks {
                for (op, what) in [
                    (&l.first, "the lock epoch granted first"),
                    (&l.second, "the lock epoch the barrier makes wait for it"),
                ] {
                    if let (Some(file), Some(line), Some(column)) = (&op.file, op.line, op.column) {
                        f.labels.push(Label {
                            file: file.clone(),
                            line,
                            column,
                            span: op.span,
                            message: format!("{what} (rank {})", op.rank),
                        });
                    }
                }
            }
        }
        for (op, what) in [(&self.first, a), (&self.second, b)] {
            if let (Some(file), Some(line)) = (&op.file, op.line) {
                f.labels.push(Label {
                    file: file.clone(),
                    line,
                    column: op.column.unwrap_or(1),
                    span: op.span,
                    message: what,
                });
            }
        }
        f.notes = vec![
            self.inputs.note(),
            format!("ordering: {}", self.path.join(" → ")),
        ];
        f.replay = Some(self.replay.clone());
        f.notes.extend(self.note.clone());
        f
    }
}

/// A barrier group that the proof by removal (`--confirm`) found relevant
/// in a program that fails in some interleaving, where the fast method has
/// no witness: deleting the group changes what the program can do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelevantByRemoval {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
    pub inputs: Inputs,
    /// A note added last (e.g. that the program fails).
    pub note: Option<String>,
}

impl Rule for RelevantByRemoval {
    const CODE: &'static Code = &FIB015;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            "relevant barrier: deleting this barrier group changes what the program can do (shown by removal)",
        );
        barrier_group(&mut f, &self.group);
        f.notes.push(self.inputs.note());
        f.notes.extend(self.note.clone());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::{op, shown, site};

    #[test]
    fn labels_the_receive_and_the_send() {
        let (recv, send) = (site("a.c", 21, 9), site("a.c", 29, 9));
        let mut b = RelevantBarrier {
            group: vec![site("a.c", 22, 9), site("a.c", 28, 9)],
            inputs: Inputs::Every,
            recv: op(&recv, 0, "MPI_Recv"),
            send: op(&send, 2, "MPI_Send"),
            path: vec![
                "rank 0 MPI_Recv at a.c:21".into(),
                "all ranks meet in the barrier".into(),
            ],
            replay: "0".into(),
            note: None,
        };
        let f = b.finding();
        assert_eq!(
            f.message,
            "relevant barrier: it keeps rank 2's MPI_Send away from rank 0's wildcard MPI_Recv"
        );
        assert_eq!(
            (f.line, f.span, f.help.as_deref()),
            (Some(22), Some((2209, 2250)), None)
        );
        let labels: Vec<String> = f.labels.iter().map(shown).collect();
        assert_eq!(
            labels,
            [
                "a.c:28:9 Some((2809, 2850)) also part of this barrier group",
                "a.c:21:9 Some((2109, 2150)) wildcard receive (rank 0)",
                "a.c:29:9 Some((2909, 2950)) send (rank 2) this receive could match without the barrier",
            ]
        );
        assert_eq!(
            f.notes[1..],
            ["ordering: rank 0 MPI_Recv at a.c:21 → all ranks meet in the barrier".to_string(),]
        );
        assert_eq!(f.replay.as_deref(), Some("0"), "the witness's interleaving");
        // A send that cannot be placed is not labelled.
        b.send.column = None;
        b.note = Some("n".into());
        let f = b.finding();
        assert_eq!(f.labels.len(), 2);
        assert_eq!(f.notes.last().map(String::as_str), Some("n"));
    }
}
