//! FIB016: a barrier group fib has no verdict for: it never ran, every
//! interleaving failed before it, or the check was interrupted first.

use super::common::{barrier_group, Inputs};
use super::{Code, Rule};
use crate::finding::{Finding, Severity};
use crate::model::{Gate, GateKind, SiteRef};

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
`fib:` directives of the source file. The notes name the conditions on the
way to the barrier and what each reads: the program's input, the rank or
the process count, or only constants. When one of them keeps the barrier
away in every run of this build (`if (debug)` where `debug` is 0 wherever
it is set, `if (TRACE)` with `#define TRACE 0`), no input or process count
reaches it, and the `help:` line says what does: the compile definition
that brings in a definition the preprocessor left out (`-DDEBUG` for an
`int debug = 1;` under `#ifdef DEBUG`), another definition of the macro,
or a change to the source. For an interrupted check, let the
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
    /// The conditions on the way to its sites, with what decides each.
    pub gates: Vec<Gate>,
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
        let (note, help) = gate_advice(&self.gates);
        f.notes.extend(note);
        f.notes.extend(self.note.clone());
        f.help = Some(help.unwrap_or_else(|| {
            "check again with a process count or program arguments (after `--`) that reach it"
                .into()
        }));
        f
    }
}

/// What the conditions on the way to a barrier say (a note), and what can
/// reach it (the help), when fib knows better than "try other inputs".
fn gate_advice(gates: &[Gate]) -> (Option<String>, Option<String>) {
    // A condition that no run of this build passes decides alone.
    if let Some((g, why, macro_def, left_out)) = gates.iter().find_map(|g| match &g.kind {
        GateKind::Off {
            why,
            macro_def,
            left_out,
        } => Some((g, why, macro_def, left_out)),
        _ => None,
    }) {
        let mut note = format!(
            "it runs only when `{}` at {}:{} holds, and {why}",
            g.text, g.file, g.line
        );
        if let Some(l) = left_out {
            note.push_str(&format!(
                "; the definition at {} is under `{}`, which this build leaves out",
                l.at, l.directive
            ));
        } else if let Some((m, at)) = macro_def {
            note.push_str(&format!(" (`{m}` is defined at {at})"));
        }
        let help = match (left_out.as_ref().and_then(|l| l.flag.as_ref()), macro_def) {
            (Some(flag), _) => format!(
                "no process count or program argument runs it: build with `{flag}` (in the compile database or the build's flags) and check again"
            ),
            (None, Some((m, _))) => format!(
                "no process count or program argument runs it: only a build with another definition of `{m}` does"
            ),
            _ => "no process count or program argument runs it: only a change to the source does"
                .into(),
        };
        return (Some(note), Some(help));
    }
    if gates.is_empty() {
        return (None, None);
    }
    let what: Vec<String> = gates
        .iter()
        .map(|g| match &g.kind {
            GateKind::Input { reason } => reason.clone(),
            GateKind::Count => format!(
                "`{}` at {}:{} reads the rank or the process count",
                g.text, g.file, g.line
            ),
            _ => format!("`{}` at {}:{} reads only constants", g.text, g.file, g.line),
        })
        .collect();
    let note = format!("what decides whether it runs: {}", what.join("; "));
    let input = gates
        .iter()
        .any(|g| matches!(g.kind, GateKind::Input { .. }));
    let count = gates.iter().any(|g| g.kind == GateKind::Count);
    let these = if gates.len() == 1 {
        "that condition hold"
    } else {
        "those conditions hold"
    };
    let help = match (input, count) {
        (true, true) => Some(format!(
            "check again with program arguments (after `--`) or input, or a process count (`-n`), that make {these}"
        )),
        (true, false) => Some(format!(
            "check again with program arguments (after `--`) or input that make {these}"
        )),
        (false, true) => Some(format!(
            "check again with a process count (`-n`) that makes {these}"
        )),
        (false, false) => None,
    };
    (Some(note), help)
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
    use crate::model::LeftOut;

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
            gates: vec![],
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

    fn gate(text: &str, line: u32, kind: GateKind) -> Gate {
        Gate {
            text: text.into(),
            file: "m.cpp".into(),
            line,
            kind,
        }
    }

    fn not_covered(gates: Vec<Gate>) -> Finding {
        BarrierNotCovered {
            group: vec![site("m.cpp", 353, 15)],
            inputs: None,
            note: None,
            gates,
        }
        .finding()
    }

    #[test]
    fn a_barrier_only_a_compile_definition_reaches_names_it() {
        let f = not_covered(vec![
            gate("for (i = 0; i < n; i++)", 340, GateKind::Count),
            gate(
                "if (debug)",
                353,
                GateKind::Off {
                    why: "`debug` is 0 wherever it is set".into(),
                    macro_def: None,
                    left_out: Some(LeftOut {
                        at: "m.cpp:67".into(),
                        directive: "#ifdef DEBUG".into(),
                        flag: Some("-DDEBUG".into()),
                    }),
                },
            ),
        ]);
        assert_eq!(
            f.notes,
            ["it runs only when `if (debug)` at m.cpp:353 holds, and `debug` is 0 wherever it is set; the definition at m.cpp:67 is under `#ifdef DEBUG`, which this build leaves out"]
        );
        assert_eq!(
            f.help.as_deref(),
            Some("no process count or program argument runs it: build with `-DDEBUG` (in the compile database or the build's flags) and check again")
        );
        let f = not_covered(vec![gate(
            "if (TRACE)",
            12,
            GateKind::Off {
                why: "its condition is the constant 0 in this build".into(),
                macro_def: Some(("TRACE".into(), "m.h:3".into())),
                left_out: None,
            },
        )]);
        assert_eq!(
            f.notes,
            ["it runs only when `if (TRACE)` at m.cpp:12 holds, and its condition is the constant 0 in this build (`TRACE` is defined at m.h:3)"]
        );
        assert_eq!(
            f.help.as_deref(),
            Some("no process count or program argument runs it: only a build with another definition of `TRACE` does")
        );
    }

    #[test]
    fn a_barrier_behind_input_or_the_process_count_says_which() {
        let input = gate(
            "if (argc > 2)",
            9,
            GateKind::Input {
                reason: "`if (argc > 2)` at m.cpp:9 reads `argc`".into(),
            },
        );
        let count = gate("if (size > 4)", 11, GateKind::Count);
        let f = not_covered(vec![input.clone()]);
        assert_eq!(
            f.notes,
            ["what decides whether it runs: `if (argc > 2)` at m.cpp:9 reads `argc`"]
        );
        assert_eq!(
            f.help.as_deref(),
            Some("check again with program arguments (after `--`) or input that make that condition hold")
        );
        let f = not_covered(vec![count.clone()]);
        assert_eq!(
            f.notes,
            ["what decides whether it runs: `if (size > 4)` at m.cpp:11 reads the rank or the process count"]
        );
        assert_eq!(
            f.help.as_deref(),
            Some("check again with a process count (`-n`) that makes that condition hold")
        );
        let f = not_covered(vec![input, count]);
        assert_eq!(
            f.help.as_deref(),
            Some("check again with program arguments (after `--`) or input, or a process count (`-n`), that make those conditions hold")
        );
        // Constants fib cannot evaluate: the note, and the usual help.
        let f = not_covered(vec![gate("if (n > 3)", 5, GateKind::Fixed)]);
        assert_eq!(
            f.notes,
            ["what decides whether it runs: `if (n > 3)` at m.cpp:5 reads only constants"]
        );
        assert!(f
            .help
            .as_deref()
            .unwrap()
            .starts_with("check again with a process count or program arguments"));
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
