//! FIB017: `--confirm` and the fast method disagree about a barrier group.

use std::collections::BTreeSet;

use super::{Code, Rule};
use crate::finding::{Finding, Severity};
use crate::model::{SiteRef, Verdict};

/// Proof by removal contradicts the completes-before verdict.
pub const FIB017: Code = Code {
    code: "FIB017",
    name: "confirm-disagreement",
    severity: Severity::Error,
    tool_failure: true,
    summary: "`--confirm`'s proof by removal disagrees with the fast method about a barrier group: an internal error of fib.",
    explanation: "\
## What it means

With `--confirm`, fib re-explores the program with the sites of each barrier
group removed and compares the (wildcard receive, matched send) pairs and
the errors it finds with those of the program as written. That is the
definition of a relevant barrier. For this group the result contradicts the
verdict of the fast method, which reads relevance off the completes-before
graph of each interleaving. The two must agree, so one of them is wrong.

## Why it matters

This is a fault in fib, not in the program. Until it is fixed, neither
verdict on this group can be trusted; the finding reports the confirmed one.

## Example

    fib check prog.c -n 3 --confirm
    error[FIB017]: --confirm says the barrier group at prog.c:16 is relevant,
                   the fast method said irrelevant

## What to do

Report it to fib's developers with the program, the process count and the
command line. Meanwhile trust the verdict by removal: it is the definition.
",
};

/// What one exploration showed, as `--confirm` compares it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// (wildcard receive, matched send) pairs.
    pub pairs: usize,
    /// The codes of the errors found.
    pub errors: BTreeSet<&'static str>,
}

/// `--confirm`'s proof by removal contradicting the fast method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfirmDisagreement {
    /// The program's main source file, as the user named it.
    pub program: String,
    /// The group's sites; the first is the finding's place.
    pub group: Vec<SiteRef>,
    /// The fast method's verdict, and removal's.
    pub fast: Verdict,
    pub removal: Verdict,
    /// The program as written, and without the group.
    pub with: Observed,
    pub without: Observed,
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Relevant => "relevant",
        Verdict::Irrelevant => "irrelevant",
        Verdict::NotCovered => "not covered",
        Verdict::Undecided => "not decided",
    }
}

impl Rule for ConfirmDisagreement {
    const CODE: &'static Code = &FIB017;

    fn finding(&self) -> Finding {
        let lines: Vec<String> = self
            .group
            .iter()
            .map(|s| format!("{}:{}", s.file, s.line))
            .collect();
        let mut f = Finding::new(
            Self::CODE,
            format!(
                "internal error: in {}, the barrier group at {} is {} by the fast method but {} by removal",
                self.program,
                lines.join(", "),
                verdict_name(self.fast),
                verdict_name(self.removal)
            ),
        );
        f.file = self.group.first().map(|s| s.file.clone());
        f.line = self.group.first().map(|s| s.line);
        f.column = self.group.first().map(|s| s.column);
        f.notes = vec![format!(
            "without the group: {} wildcard pairs, errors {:?}; with it: {} pairs, errors {:?}",
            self.without.pairs, self.without.errors, self.with.pairs, self.with.errors
        )];
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::common::tests::site;

    #[test]
    fn names_both_verdicts_and_what_removal_saw() {
        let f = ConfirmDisagreement {
            program: "prog.c".into(),
            group: vec![site("prog.c", 16, 5), site("prog.c", 20, 5)],
            fast: Verdict::Irrelevant,
            removal: Verdict::Relevant,
            with: Observed {
                pairs: 2,
                errors: BTreeSet::new(),
            },
            without: Observed {
                pairs: 3,
                errors: BTreeSet::from(["FIB001", "FIB002"]),
            },
        }
        .finding();
        assert_eq!(f.message, "internal error: in prog.c, the barrier group at prog.c:16, prog.c:20 is irrelevant by the fast method but relevant by removal");
        assert_eq!(
            f.notes,
            vec![r#"without the group: 3 wildcard pairs, errors {"FIB001", "FIB002"}; with it: 2 pairs, errors {}"#.to_string()]
        );
        assert_eq!((f.line, f.column, f.span), (Some(16), Some(5), None));
        assert!(f.code.tool_failure);
    }
}
