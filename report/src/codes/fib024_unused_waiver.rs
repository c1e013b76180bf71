//! FIB024: a waiver comment that suppresses nothing.

use super::{Code, Rule};
use crate::finding::{Finding, Place, Severity};

/// A `fib: allow` comment whose codes suppressed no finding in the check.
pub const FIB024: Code = Code {
    code: "FIB024",
    name: "unused-waiver",
    severity: Severity::Warning,
    tool_failure: false,
    summary: "A `fib: allow` waiver suppressed nothing: the finding it was written for is gone, or it is in the wrong place.",
    explanation: "\
## What it means

A comment `fib: allow CODE -- reason` (or `fib: allow CODE1, CODE2`)
suppresses the findings with those codes whose primary location is the
comment's own line, or, when the comment is alone on its line, the line
just below it. Over everything this `fib check` reported, no finding with
the named code was on that line: the waiver suppressed nothing. The
finding names the codes that went unused; a code that fib does not have
is named as such.

## Why it matters

A waiver is a decision about one finding. Once the code changed and the
finding went away (or moved to another line), the comment keeps claiming
that something is waived there and would silently hide a new finding of
the same code on that line later. Waivers that are checked do not rot.

## Example

    MPI_Barrier(MPI_COMM_WORLD); /* fib: allow FIB014 -- times the phases */

If this barrier becomes relevant (a FIB015 note instead of a FIB014
warning) or moves to another line, the waiver is reported.

## What to do

Delete the waiver, or the unused code from its list, if the finding is
gone. If the finding moved, move the comment to the finding's line (or
alone on the line above it). Note that `fib check --replay TOKEN` does not
report unused waivers: one interleaving does not show every finding.
",
};

/// A waiver some of whose codes suppressed no finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnusedWaiver {
    /// The waiver comment: its file, line, column and span.
    pub place: Place,
    /// The codes of the waiver that suppressed nothing, as written (upper
    /// case). At least one.
    pub unused: Vec<String>,
    /// Those of `unused` that are no fib code at all.
    pub unknown: Vec<String>,
    /// Whether the waiver has other codes that did suppress something.
    pub partly_used: bool,
    /// The waiver's reason, when it gives one.
    pub reason: Option<String>,
}

impl Rule for UnusedWaiver {
    const CODE: &'static Code = &FIB024;

    fn finding(&self) -> Finding {
        let codes = self.unused.join(", ");
        let mut f = Finding::new(
            Self::CODE,
            format!("unused waiver: nothing reported here has code {codes}"),
        )
        .at(&self.place);
        if !self.unknown.is_empty() {
            f.notes.push(format!(
                "{} {} no fib code (see `fib explain`)",
                self.unknown.join(", "),
                if self.unknown.len() == 1 { "is" } else { "are" }
            ));
        }
        if let Some(reason) = &self.reason {
            f.notes.push(format!("the waiver's reason: {reason}"));
        }
        let line = self.place.line.map_or(String::new(), |l| format!(" {l}"));
        f.help = Some(if self.partly_used {
            format!("take {codes} out of the waiver on line{line}")
        } else {
            format!(
                "delete the waiver on line{line}, or move it to the line of the finding it is for"
            )
        });
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> Place {
        Place {
            file: Some("a.c".into()),
            line: Some(7),
            column: Some(34),
            span: Some((120, 160)),
        }
    }

    #[test]
    fn names_the_unused_codes_and_the_reason() {
        let f = UnusedWaiver {
            place: place(),
            unused: vec!["FIB014".into()],
            unknown: vec![],
            partly_used: false,
            reason: Some("times the phases".into()),
        }
        .finding();
        assert_eq!(
            f.message,
            "unused waiver: nothing reported here has code FIB014"
        );
        assert_eq!(
            (f.file.as_deref(), f.line, f.column, f.span),
            (Some("a.c"), Some(7), Some(34), Some((120, 160)))
        );
        assert_eq!(f.notes, ["the waiver's reason: times the phases"]);
        assert_eq!(
            f.help.as_deref(),
            Some("delete the waiver on line 7, or move it to the line of the finding it is for")
        );
        assert_eq!(f.severity(), Severity::Warning);
    }

    #[test]
    fn an_unknown_code_of_a_partly_used_waiver() {
        let f = UnusedWaiver {
            place: place(),
            unused: vec!["FIB999".into()],
            unknown: vec!["FIB999".into()],
            partly_used: true,
            reason: None,
        }
        .finding();
        assert_eq!(f.notes, ["FIB999 is no fib code (see `fib explain`)"]);
        assert_eq!(
            f.help.as_deref(),
            Some("take FIB999 out of the waiver on line 7")
        );
    }
}
