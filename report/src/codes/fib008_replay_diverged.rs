//! FIB008: a replayed run did not make the same MPI calls as the run it
//! replayed.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A replay did not follow the recorded run.
pub const FIB008: Code = Code {
    code: "FIB008",
    name: "replay-diverged",
    severity: Severity::Error,
    tool_failure: false,
    summary: "Replaying an interleaving produced different MPI calls: the program is nondeterministic in a way MPI does not explain.",
    explanation: "\
## What it means

fib explores interleavings by running the program again and replaying the
choices made so far. In this run a rank made a different MPI call, or the
same call with different arguments, than in the earlier run with the same
choices. The finding names the site where the runs parted.

## Why it matters

fib can only cover every interleaving if the program's MPI calls depend on
nothing but the messages it receives. Reading the clock, calling rand(),
using uninitialised memory or depending on the host name break that, and the
interleavings after the divergence were not explored.

## Example

    srand(time(NULL));
    if (rand() % 2)      /* a different branch on every run */
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);

## What to do

Make the program deterministic for verification: seed random generators with
a constant, initialise every variable, and keep timing out of decisions that
change which MPI calls are made.
",
};

/// A choice point of a run, as a divergence names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChoiceAt {
    pub rank: usize,
    /// The index of the rank's call at the choice point.
    pub call: usize,
    /// How many alternatives the point had.
    pub alternatives: usize,
}

/// A replay that did not follow the run it replays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayDiverged {
    /// The replay token names more choices than the run had.
    TooManyChoices { replay: String },
    /// The run parted from the recorded one at a choice.
    Diverged {
        /// The choice's index, counted from 0 (the message counts from 1).
        index: usize,
        /// The choice point the replay expected, if any.
        expected: Option<ChoiceAt>,
        /// The choice point the run reached instead, if any.
        found: Option<ChoiceAt>,
        /// Where `found` is; ignored without `found`.
        place: Place,
        replay: String,
    },
}

/// "rank 1 call #4 choosing among 2 alternatives", or "no choice point".
fn describe(p: &Option<ChoiceAt>) -> String {
    match p {
        Some(p) => format!(
            "rank {} call #{} choosing among {} alternatives",
            p.rank, p.call, p.alternatives
        ),
        None => "no choice point".into(),
    }
}

impl Rule for ReplayDiverged {
    const CODE: &'static Code = &FIB008;

    fn finding(&self) -> Finding {
        match self {
            ReplayDiverged::TooManyChoices { replay } => {
                let mut f = Finding::new(Self::CODE, "the replay token names more choices than this run had; the program does not behave as when the token was made");
                f.replay = Some(replay.clone());
                f
            }
            ReplayDiverged::Diverged {
                index,
                expected,
                found,
                place,
                replay,
            } => {
                let mut f = Finding::new(
                    Self::CODE,
                    format!(
                        "replay diverged at choice {}: expected {}, found {}; the program's behaviour depends on something other than MPI (time, random numbers, uninitialised memory)",
                        index + 1,
                        describe(expected),
                        describe(found)
                    ),
                );
                if let Some(p) = found {
                    f = f.at(place);
                    f.rank = Some(p.rank);
                }
                f.replay = Some(replay.clone());
                f
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_choices() {
        let f = ReplayDiverged::TooManyChoices {
            replay: "3.1".into(),
        }
        .finding();
        assert!(f
            .message
            .starts_with("the replay token names more choices than this run had"));
        assert_eq!(
            (f.file, f.rank, f.replay.as_deref()),
            (None, None, Some("3.1"))
        );
    }

    #[test]
    fn a_divergence_names_both_points_and_sits_at_the_found_one() {
        let place = Place {
            file: Some("a.c".into()),
            line: Some(12),
            column: Some(3),
            span: Some((120, 130)),
        };
        let f = ReplayDiverged::Diverged {
            index: 1,
            expected: Some(ChoiceAt {
                rank: 0,
                call: 4,
                alternatives: 2,
            }),
            found: Some(ChoiceAt {
                rank: 1,
                call: 5,
                alternatives: 3,
            }),
            place: place.clone(),
            replay: "1".into(),
        }
        .finding();
        assert_eq!(f.message, "replay diverged at choice 2: expected rank 0 call #4 choosing among 2 alternatives, found rank 1 call #5 choosing among 3 alternatives; the program's behaviour depends on something other than MPI (time, random numbers, uninitialised memory)");
        assert_eq!(
            (f.line, f.rank, f.span),
            (Some(12), Some(1), Some((120, 130)))
        );
        let f = ReplayDiverged::Diverged {
            index: 0,
            expected: None,
            found: None,
            place,
            replay: "1".into(),
        }
        .finding();
        assert!(f
            .message
            .contains("expected no choice point, found no choice point"));
        assert_eq!((f.file, f.rank, f.span), (None, None, None));
    }
}
