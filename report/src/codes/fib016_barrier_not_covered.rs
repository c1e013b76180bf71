//! FIB016: a barrier group fib has no verdict for: it never ran, every
//! interleaving failed before it, or the check was interrupted first.

use super::common::{barrier_group, Inputs};
use super::{Code, Rule};
use crate::finding::{Finding, Severity};
use crate::model::SiteRef;

/// No site of the barrier group ran in any explored interleaving.
pub const FIB016: Code = Code {
    code: "FIB016",
    name: "barrier-not-covered",
    severity: Severity::Note,
    tool_failure: false,
    summary: "No site of this barrier group ran in any explored interleaving, so fib cannot say whether it is needed.",
    explanation: "\
## What it means

The program's sources call `MPI_Barrier` here, but with the input, the
process count and the interleavings fib explored, no rank reached the call.
fib judges barriers by what they order in real runs, so it has nothing to
judge this one by: it is neither relevant nor irrelevant.

The same code reports a group in a function the program never calls
(no call from `main` reaches it, and nothing takes its address: a
header's helper, say), a group that never completed because every
interleaving deadlocked or crashed before all ranks reached it, and a group
left undecided because the check was interrupted (Ctrl-C): the
interleavings run so far showed no use for it, but one not run could, so
fib does not call it irrelevant. (A group that a run showed relevant stays
relevant when the check is interrupted: its witness is a proof.)

## Why it matters

A barrier that did not run may still matter with another input or another
number of ranks. Calling it irrelevant would be a guess.

## Example

    if (argc > 1 && strcmp(argv[1], \"--checkpoint\") == 0) {
        write_checkpoint(rank);
        MPI_Barrier(MPI_COMM_WORLD);  /* not run without --checkpoint */
    }

## What to do

Check the program again with an input or a process count that reaches the
barrier (program arguments after `--`, another `-n`), or with the
`fib:` directives of the source file. For an interrupted check, let the
check run to the end (lower `--max-interleavings` to bound it; a cut
exploration still gives each group a verdict, marked as partial).
",
};

/// A barrier group fib has no verdict to show for: no site ran (or removal
/// found it relevant, which gives no witness).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierNotCovered {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
    /// For which inputs the verdict holds, for a group that has one (found
    /// relevant by removal); `None` for a group that never ran.
    pub inputs: Option<Inputs>,
    /// A note added last (e.g. that the program fails).
    pub note: Option<String>,
}

impl Rule for BarrierNotCovered {
    const CODE: &'static Code = &FIB016;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            "barrier not covered: no interleaving ran it, so fib cannot say whether it is needed",
        );
        barrier_group(&mut f, &self.group);
        f.notes = self.inputs.iter().map(Inputs::note).collect();
        f.notes.extend(self.note.clone());
        f.help = Some(
            "check again with a process count or program arguments (after `--`) that reach it"
                .into(),
        );
        f
    }
}

/// A barrier group that never completed because every interleaving failed
/// first: the failure, not the input, kept the ranks from meeting there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierNotReached {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
    /// How every interleaving ended, as a past participle: "deadlocked",
    /// "crashed", "ran past the time limit".
    pub failure: &'static str,
}

impl Rule for BarrierNotReached {
    const CODE: &'static Code = &FIB016;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "barrier never completed: every interleaving {} before all ranks reached it",
                self.failure
            ),
        );
        barrier_group(&mut f, &self.group);
        f.help = Some(
            "fix the failure reported above first; fib judges this barrier once the program gets past it"
                .into(),
        );
        f
    }
}

/// A barrier group in code the program never runs: a function that no
/// call from `main` reaches and whose address nothing takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierNeverRuns {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
}

impl Rule for BarrierNeverRuns {
    const CODE: &'static Code = &FIB016;

    fn finding(&self) -> Finding {
        let mut f = Finding::new(
            Self::CODE,
            "barrier not covered: it is in a function the program never calls",
        );
        barrier_group(&mut f, &self.group);
        f.notes = vec![
            "no call from `main` reaches the function, directly or not, and nothing takes its address: no input or process count runs it".into(),
        ];
        f.help = Some(
            "fib judges a barrier by the runs that reach it: check a program that calls the function".into(),
        );
        f
    }
}

/// A barrier group the check was interrupted before deciding: no run so
/// far showed it relevant, and one not run might.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierUndecided {
    /// The group's sites; the first is the finding's place. At least one.
    pub group: Vec<SiteRef>,
    /// The interleavings run before the interrupt.
    pub interleavings: usize,
}

impl Rule for BarrierUndecided {
    const CODE: &'static Code = &FIB016;

    fn finding(&self) -> Finding {
        let n = self.interleavings;
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "barrier not decided: interrupted after {n} interleaving{}",
                if n == 1 { "" } else { "s" }
            ),
        );
        barrier_group(&mut f, &self.group);
        f.notes = vec![
            "none of the interleavings run so far needed it, but one not run yet could: it is not called irrelevant".into(),
        ];
        f.help = Some("check again and let the check finish to decide".into());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::site;

    #[test]
    fn a_barrier_a_failure_kept_away_says_so_and_asks_for_the_fix() {
        let f = BarrierNotReached {
            group: vec![site("a.c", 10, 5)],
            failure: "deadlocked",
        }
        .finding();
        assert_eq!(
            f.message,
            "barrier never completed: every interleaving deadlocked before all ranks reached it"
        );
        assert!(!f.help.as_deref().unwrap().contains("--confirm"));
        assert!(f.notes.is_empty());
        assert_eq!(f.line, Some(10));
    }

    #[test]
    fn an_interrupted_group_is_not_decided_and_says_after_how_much() {
        let f = BarrierUndecided {
            group: vec![site("a.c", 12, 5), site("a.c", 20, 5)],
            interleavings: 1,
        }
        .finding();
        assert_eq!(
            f.message,
            "barrier not decided: interrupted after 1 interleaving"
        );
        assert!(!f.message.contains("irrelevant"));
        assert_eq!((f.line, f.labels.len()), (Some(12), 1));
        let f = BarrierUndecided {
            group: vec![site("a.c", 12, 5)],
            interleavings: 7,
        }
        .finding();
        assert_eq!(
            f.message,
            "barrier not decided: interrupted after 7 interleavings"
        );
        assert_eq!(
            f.help.as_deref(),
            Some("check again and let the check finish to decide")
        );
    }

    #[test]
    fn asks_for_an_input_that_reaches_it() {
        let f = BarrierNotCovered {
            group: vec![site("a.c", 36, 13), site("b.c", 8, 5)],
            inputs: None,
            note: None,
        }
        .finding();
        assert_eq!(
            f.message,
            "barrier not covered: no interleaving ran it, so fib cannot say whether it is needed"
        );
        assert_eq!(
            f.help.as_deref(),
            Some(
                "check again with a process count or program arguments (after `--`) that reach it"
            )
        );
        assert_eq!((f.line, f.column), (Some(36), Some(13)));
        assert_eq!(f.labels.len(), 1);
        assert!(f.notes.is_empty());
    }

    #[test]
    fn a_barrier_in_a_function_never_called_says_so_and_sends_nowhere_else() {
        let f = BarrierNeverRuns {
            group: vec![site("h.h", 12, 3)],
        }
        .finding();
        assert_eq!(
            f.message,
            "barrier not covered: it is in a function the program never calls"
        );
        assert_eq!(*f.code, FIB016);
        assert!(f.notes[0].contains("no call from `main` reaches the function"));
        assert!(!f.help.as_deref().unwrap().contains("arguments"));
        assert_eq!((f.file.as_deref(), f.line), (Some("h.h"), Some(12)));
    }
}
