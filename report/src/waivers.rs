//! Waivers: comments in the user's sources that suppress one finding.
//!
//! A waiver is a comment `// fib: allow FIB014 -- reason` or
//! `/* fib: allow FIB014, FIB020 -- reason */` (the reason is optional). It
//! covers the findings with one of its codes whose primary location is the
//! comment's own line; a comment alone on its line also covers the line
//! just below it. A covered finding is taken out of its program's report
//! and counted as waived. A code of a waiver that covered nothing in the
//! whole check is reported as an unused waiver (FIB024) at the comment.
//!
//! Everything here is pure: source texts come from a loader the caller
//! gives.

use std::collections::HashSet;

use crate::codes::{self, Rule, UnusedWaiver};
use crate::finding::Place;
use crate::model::{Outcome, Report, Waived};

/// One waiver comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiver {
    pub file: String,
    /// The comment's line (1-based).
    pub line: u32,
    /// The column where the comment starts (1-based, in bytes).
    pub column: u32,
    /// Byte offsets `[start, end)` of the comment in the file.
    pub span: (usize, usize),
    /// The codes it allows, upper case, in the order written.
    pub codes: Vec<String>,
    /// The text after `--`, when there is one.
    pub reason: Option<String>,
    /// Whether the comment is alone on its line, so that it also covers the
    /// next line.
    pub alone: bool,
}

impl Waiver {
    /// Whether the waiver covers findings on `line` of its file.
    pub fn covers(&self, line: u32) -> bool {
        line == self.line || (self.alone && line == self.line + 1)
    }
}

/// The waivers in `text`, the contents of `file`. A waiver must be in a
/// `//` or `/* */` comment that starts on its line, and name at least one
/// code.
pub fn parse(file: &str, text: &str) -> Vec<Waiver> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        // The first `fib:` of the line that is a waiver (another may be a
        // directive such as `fib: -n 3`).
        let waiver = line
            .match_indices("fib:")
            .find_map(|(at, _)| parse_at(file, line, at, i as u32 + 1, offset));
        out.extend(waiver);
        offset += raw.len();
    }
    out
}

/// The waiver whose `fib:` is at byte `at` of a line, which starts at byte
/// `offset` of the file.
fn parse_at(file: &str, line: &str, at: usize, number: u32, offset: usize) -> Option<Waiver> {
    let before = &line[..at];
    // The comment that holds the waiver: the last one opened before it.
    let (start, block) = match (before.rfind("//"), before.rfind("/*")) {
        (Some(a), Some(b)) if b > a => (b, true),
        (Some(a), _) => (a, false),
        (None, Some(b)) => (b, true),
        (None, None) => return None,
    };
    let rest = line[at + 4..].trim_start();
    let rest = rest.strip_prefix("allow")?;
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let after = at + 4 + (line[at + 4..].len() - rest.len());
    // The comment ends at `*/` (block) or at the end of the line.
    let (body, end) = if block {
        match line[after..].find("*/") {
            Some(e) => (&line[after..after + e], after + e + 2),
            None => (&line[after..], line.len()),
        }
    } else {
        (&line[after..], line.trim_end().len())
    };
    let (list, reason) = match body.find("--") {
        Some(d) => (&body[..d], Some(body[d + 2..].trim())),
        None => (body, None),
    };
    let codes: Vec<String> = list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|c| !c.is_empty())
        .map(str::to_ascii_uppercase)
        .collect();
    if codes.is_empty() {
        return None;
    }
    let alone = line[..start].trim().is_empty() && line[end..].trim().is_empty();
    Some(Waiver {
        file: file.to_string(),
        line: number,
        column: start as u32 + 1,
        span: (offset + start, offset + end),
        codes,
        reason: reason.filter(|r| !r.is_empty()).map(str::to_string),
        alone,
    })
}

/// Applies the waivers of the programs' sources (and of the files findings
/// point into) to `report`: each finding a waiver covers leaves its
/// program's findings for its `workflow.waived`. With `report_unused`, each
/// waiver of a program's source with codes that covered nothing in the
/// whole report becomes a FIB024 finding, in every report of the first
/// program with that source (one per process count). `load` gives a file's
/// text by the path findings use, or `None` when it cannot be read.
pub fn apply(
    report: &mut Report,
    load: &mut dyn FnMut(&str) -> Option<String>,
    report_unused: bool,
) {
    let mut files: Vec<String> = Vec::new();
    for p in &report.programs {
        let named = p.findings.iter().filter_map(|f| f.file.clone());
        for f in p.workflow.sources.iter().cloned().chain(named) {
            if !files.contains(&f) {
                files.push(f);
            }
        }
    }
    let waivers: Vec<Waiver> = files
        .iter()
        .filter_map(|f| load(f).map(|text| parse(f, &text)))
        .flatten()
        .collect();
    if waivers.is_empty() {
        return;
    }
    // (waiver index, code) pairs that covered some finding.
    let mut used: HashSet<(usize, &str)> = HashSet::new();
    for p in &mut report.programs {
        let mut kept = Vec::with_capacity(p.findings.len());
        for f in std::mem::take(&mut p.findings) {
            let waiver = match (&f.file, f.line) {
                (Some(file), Some(line)) if f.code != &codes::FIB024 => {
                    waivers.iter().enumerate().find(|(_, w)| {
                        w.file == *file
                            && w.covers(line)
                            && w.codes.iter().any(|c| c == f.code.code)
                    })
                }
                _ => None,
            };
            match waiver {
                Some((i, w)) => {
                    used.insert((i, f.code.code));
                    p.workflow.waived.push(Waived {
                        code: f.code.code,
                        file: w.file.clone(),
                        line: f.line.unwrap_or(w.line),
                        reason: w.reason.clone(),
                    });
                }
                None => kept.push(f),
            }
        }
        p.findings = kept;
    }
    if !report_unused {
        return;
    }
    for (i, w) in waivers.iter().enumerate() {
        let unused: Vec<String> = w
            .codes
            .iter()
            .filter(|c| !used.contains(&(i, c.as_str())))
            .cloned()
            .collect();
        let Some(owner) = report
            .programs
            .iter()
            .find(|p| p.workflow.sources.contains(&w.file))
            .map(|p| p.program.clone())
        else {
            continue;
        };
        // A program fib could not check through (it did not build, or calls
        // what fib does not model) cannot tell whether a waiver is used.
        let unchecked = report.programs.iter().any(|p| {
            p.workflow.sources.contains(&w.file)
                && (p.interleavings == 0
                    || matches!(p.outcome, Outcome::Unsupported | Outcome::BuildFailed))
        });
        if unused.is_empty() || unchecked {
            continue;
        }
        let rule = UnusedWaiver {
            place: Place {
                file: Some(w.file.clone()),
                line: Some(w.line),
                column: Some(w.column),
                span: Some(w.span),
            },
            unknown: unused
                .iter()
                .filter(|c| codes::lookup(c).is_none())
                .cloned()
                .collect(),
            partly_used: unused.len() < w.codes.len(),
            unused,
            reason: w.reason.clone(),
        };
        for p in report.programs.iter_mut().filter(|p| p.program == owner) {
            p.findings.push(rule.finding());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::{IrrelevantBarrier, FIB014, FIB024};
    use crate::model::{Buffering, Outcome, ProgramReport, SiteRef, Timing, Workflow};

    #[test]
    fn line_and_block_comments_with_and_without_reasons() {
        let text = "int x;\n    MPI_Barrier(c); // fib: allow FIB014 -- times the phases\n/* fib: allow fib014,FIB020 FIB018 */\nint y; /* fib: allow FIB001 -- */ int z;\n";
        let w = parse("a.c", text);
        assert_eq!(w.len(), 3);
        assert_eq!(w[0].line, 2);
        assert_eq!(w[0].codes, ["FIB014"]);
        assert_eq!(w[0].reason.as_deref(), Some("times the phases"));
        assert!(!w[0].alone);
        assert_eq!(w[0].column, 21);
        let (s, e) = w[0].span;
        assert_eq!(&text[s..e], "// fib: allow FIB014 -- times the phases");

        assert_eq!(w[1].codes, ["FIB014", "FIB020", "FIB018"]);
        assert_eq!(w[1].reason, None);
        assert!(w[1].alone);
        assert!(w[1].covers(3) && w[1].covers(4) && !w[1].covers(5));
        let (s, e) = w[1].span;
        assert_eq!(&text[s..e], "/* fib: allow fib014,FIB020 FIB018 */");

        // An empty reason is no reason; code after the comment: not alone.
        assert_eq!(w[2].codes, ["FIB001"]);
        assert_eq!(w[2].reason, None);
        assert!(!w[2].alone);
        assert!(w[2].covers(4) && !w[2].covers(5));

        // After a directive on the same line.
        let w = parse("a.c", "/* fib: -n 3 */ // fib: allow FIB011\n");
        assert_eq!(w.len(), 1);
        assert_eq!(
            (w[0].codes.as_slice(), w[0].column),
            (&["FIB011".to_string()][..], 17)
        );
    }

    #[test]
    fn what_is_not_a_waiver() {
        for text in [
            "/* fib: -n 3 */",
            "int fib: allow FIB014;",
            "// fib: allow",
            "// fib: allowFIB014",
            "// fib: allow -- no codes",
        ] {
            assert_eq!(parse("a.c", text), vec![], "{text}");
        }
    }

    fn site(line: u32) -> SiteRef {
        SiteRef {
            file: "a.c".into(),
            line,
            column: 5,
            span: None,
        }
    }

    fn program(nprocs: usize, lines: &[u32]) -> ProgramReport {
        ProgramReport {
            program: "a.c".into(),
            nprocs,
            buffering: Buffering::Buffered,
            outcome: Outcome::Ok,
            interleavings: 1,
            findings: lines
                .iter()
                .map(|&l| {
                    IrrelevantBarrier {
                        purposes: vec![],
                        group: vec![site(l)],
                        inputs: codes::Inputs::Every,
                        interleavings: 1,
                        ranks: 2,
                        instances: 2,
                        cut: false,
                        note: None,
                        ordered_by: None,
                    }
                    .finding()
                })
                .collect(),
            calls: 0,
            build: None,
            static_facts: None,
            barriers: vec![],
            timing: Timing::default(),
            elapsed_ms: 0,
            interrupted: false,
            sends_copied: false,
            files: None,
            workflow: Workflow {
                sources: vec!["a.c".into()],
                ..Workflow::default()
            },
        }
    }

    const SOURCE: &str = "\
int main() {
    MPI_Barrier(c); /* fib: allow FIB014 -- keep */
    // fib: allow FIB014, FIB999
    MPI_Barrier(c);
    MPI_Barrier(c);
}
";

    #[test]
    fn covered_findings_leave_and_unused_codes_are_reported_once_per_count() {
        let mut report = Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![program(2, &[2, 4, 5]), program(3, &[5])],
        };
        apply(
            &mut report,
            &mut |f| (f == "a.c").then(|| SOURCE.into()),
            true,
        );
        let p = &report.programs[0];
        assert_eq!(
            p.workflow.waived,
            vec![
                Waived {
                    code: "FIB014",
                    file: "a.c".into(),
                    line: 2,
                    reason: Some("keep".into())
                },
                Waived {
                    code: "FIB014",
                    file: "a.c".into(),
                    line: 4,
                    reason: None
                },
            ]
        );
        // Line 5 is not covered; the unknown code is reported on line 3,
        // in both reports of the program.
        for p in &report.programs {
            let lines: Vec<(&str, Option<u32>)> =
                p.findings.iter().map(|f| (f.code.code, f.line)).collect();
            assert_eq!(lines, [("FIB014", Some(5)), ("FIB024", Some(3))]);
            let unused = &p.findings[1];
            assert_eq!(unused.code, &FIB024);
            assert_eq!(
                unused.message,
                "unused waiver: nothing reported here has code FIB999"
            );
            assert_eq!(
                unused.help.as_deref(),
                Some("take FIB999 out of the waiver on line 3")
            );
        }
        assert_eq!(report.programs[1].workflow.waived, vec![]);
        assert_eq!(report.programs[0].findings[0].code, &FIB014);
    }

    #[test]
    fn a_waiver_used_at_one_count_is_used() {
        // Line 2's finding appears only at 3 ranks: its waiver is used.
        let mut report = Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![program(2, &[4, 5]), program(3, &[2, 4, 5])],
        };
        apply(&mut report, &mut |_| Some(SOURCE.into()), true);
        let unused: Vec<u32> = report
            .programs
            .iter()
            .flat_map(|p| &p.findings)
            .filter(|f| f.code == &FIB024)
            .filter_map(|f| f.line)
            .collect();
        assert_eq!(unused, [3, 3], "only FIB999 on line 3, in both reports");
    }

    #[test]
    fn a_replay_reports_no_unused_waiver() {
        let mut report = Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![program(2, &[])],
        };
        apply(&mut report, &mut |_| Some(SOURCE.into()), false);
        assert!(report.programs[0].findings.is_empty());
    }

    #[test]
    fn a_program_fib_could_not_run_reports_no_unused_waiver() {
        for outcome in [Outcome::Unsupported, Outcome::BuildFailed] {
            let mut p = program(2, &[]);
            p.outcome = outcome;
            p.interleavings = 0;
            let mut report = Report {
                programs: vec![p],
                ..Report::default()
            };
            apply(&mut report, &mut |_| Some(SOURCE.into()), true);
            assert!(report.programs[0].findings.is_empty(), "{outcome:?}");
        }
    }
}
