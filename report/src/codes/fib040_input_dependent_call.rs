//! FIB040: a call that runs only for some inputs, matched with a call of
//! another rank that runs whatever the input.

use super::common::list;
use super::{Code, Rule};
use crate::finding::{Finding, Label, Place, Severity};

/// An MPI call whose running depends on the input on some ranks while the
/// ranks it meets call theirs unconditionally.
pub const FIB040: Code = Code {
    code: "FIB040",
    name: "input-dependent-call",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "An MPI call runs only for some inputs on some ranks, while the ranks it meets make their call whatever the input.",
    explanation: "\
## What it means

The run passed, but one of its MPI calls ran on some ranks only because a
condition on the way to it held for this run's input: the command line,
the environment, what the program read from a file or its standard
input, the clock, a random number or the process id. The call it met
on other ranks (the other members of a collective, or the send or
receive that matched a point-to-point call) runs whatever that input is:
nothing on its way reads it, nor any data another rank sent. With an
input for which the condition fails, the first ranks skip their call
and the others still make theirs.

fib finds the conditions before running, from the source (the
conditions around the call and around the calls of its function, up to
`main`, and what they read through assignments and function results),
and compares the calls that each match set of the run joined. It stays
quiet when every rank's call depends on the same input (a count read
from the command line on every rank, or read on one rank and broadcast
before the loop that uses it), and when the other rank's call depends on
data it received, which may carry the input. The finding points at the
call, labels the condition, and labels the other ranks' call.

## Why it matters

This run matched, so nothing else reports it; the same program with
another argument, another environment, input file or timing deadlocks
(a collective or a receive that the other side never makes) or gets
collectives of different kinds mixed up. The inputs a check runs with
are rarely all the inputs a program meets.

## Example

    int mode = atoi(argv[1]);
    if (rank == 0) {
        if (mode % 2)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

With an odd argument every rank broadcasts; with an even one rank 0
skips the broadcast while the others wait for it.

## What to do

Make the condition the same on every rank that takes part: decide it
on one rank and MPI_Bcast the decision before the branch, or make every
rank's call depend on the same value. When the input can never take the
other value (it is checked and the program stops first), say so with a
waiver on the call.
",
};

/// A call that runs only for some inputs, and the ranks whose matching
/// call runs whatever the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputDependentCall {
    /// The MPI function, such as `MPI_Bcast`.
    pub call: String,
    /// The call, and the ranks that made it there.
    pub place: Place,
    pub ranks: Vec<usize>,
    /// The condition as written, and where it is.
    pub condition: String,
    pub condition_place: Place,
    /// The input, as a reader names it: "the command line".
    pub input: String,
    /// Where the input enters the program.
    pub source: String,
    /// The other ranks' calls: the function, the call, and the ranks.
    pub others: Vec<(String, Place, Vec<usize>)>,
    pub replay: String,
}

impl Rule for InputDependentCall {
    const CODE: &'static Code = &FIB040;

    fn finding(&self) -> Finding {
        let other_ranks: Vec<usize> = {
            let mut r: Vec<usize> = self.others.iter().flat_map(|o| o.2.clone()).collect();
            r.sort_unstable();
            r.dedup();
            r
        };
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "{} runs on {} only {}, which depends on {}; {} make{} the matching call whatever it is",
                self.call,
                list("rank", &self.ranks),
                when(&self.condition),
                self.input,
                list("rank", &other_ranks),
                if other_ranks.len() == 1 { "s" } else { "" },
            ),
        )
        .at(&self.place);
        f.rank = self.ranks.first().copied();
        if let (Some(file), Some(line)) = (&self.condition_place.file, self.condition_place.line) {
            f.labels.push(Label {
                file: file.clone(),
                line,
                column: self.condition_place.column.unwrap_or(1),
                span: self.condition_place.span,
                message: format!("this depends on {}", self.source),
            });
        }
        for (call, place, ranks) in &self.others {
            let (Some(file), Some(line)) = (&place.file, place.line) else {
                continue;
            };
            f.labels.push(Label {
                file: file.clone(),
                line,
                column: place.column.unwrap_or(1),
                span: place.span,
                message: format!(
                    "{} call{} {call} here whatever {} is",
                    list("rank", ranks),
                    if ranks.len() == 1 { "s" } else { "" },
                    self.input
                ),
            });
        }
        f.notes.push(format!(
            "with {} that makes the condition false, {} skip{} this call while {} still make{} theirs",
            self.input,
            list("rank", &self.ranks),
            if self.ranks.len() == 1 { "s" } else { "" },
            list("rank", &other_ranks),
            if other_ranks.len() == 1 { "s" } else { "" },
        ));
        f.help = Some(
            "decide the condition once (on one rank, then MPI_Bcast it) so that every rank takes the same branch, or waive the call if the input can never make it false".into(),
        );
        f.replay = Some(self.replay.clone());
        f
    }
}

/// When a condition lets the call run: "when `mode % 2` holds" for
/// `if (mode % 2)`, "as often as `for (i = 0; i < n; i++)` repeats it"
/// for a loop whose condition may stop it before the call.
fn when(text: &str) -> String {
    if text.starts_with("for") || text.starts_with("do ") {
        return format!("as often as `{text}` repeats it");
    }
    for k in ["if", "while", "switch"] {
        if let Some(rest) = text.strip_prefix(k) {
            let rest = rest.trim_start();
            if let Some(inner) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                return format!("when `{}` holds", inner.trim());
            }
        }
    }
    format!("when `{text}` holds")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32) -> Place {
        Place {
            file: Some("a.c".into()),
            line: Some(line),
            column: Some(13),
            span: None,
        }
    }

    #[test]
    fn names_the_condition_the_input_and_the_other_ranks() {
        let f = InputDependentCall {
            call: "MPI_Bcast".into(),
            place: at(13),
            ranks: vec![0],
            condition: "if (mode % 2)".into(),
            condition_place: at(12),
            input: "the command line".into(),
            source: "the command line (`argc`/`argv`)".into(),
            others: vec![("MPI_Bcast".into(), at(15), vec![1, 2])],
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            f.message,
            "MPI_Bcast runs on rank 0 only when `mode % 2` holds, which depends on the command line; ranks 1, 2 make the matching call whatever it is"
        );
        assert_eq!((f.line, f.rank), (Some(13), Some(0)));
        assert_eq!(f.labels.len(), 2);
        assert_eq!(f.labels[0].line, 12);
        assert_eq!(
            f.labels[1].message,
            "ranks 1, 2 call MPI_Bcast here whatever the command line is"
        );
    }

    #[test]
    fn a_condition_is_shown_without_its_keyword_and_a_loop_whole() {
        assert_eq!(when("while (t < limit)"), "when `t < limit` holds");
        assert_eq!(when("n > 2"), "when `n > 2` holds");
        assert_eq!(
            when("for (i = 0; i < n; i++)"),
            "as often as `for (i = 0; i < n; i++)` repeats it"
        );
    }
}
