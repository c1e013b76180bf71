//! Baselines: the findings a project already knows, so that a check fails
//! only on new ones.
//!
//! A finding's key is its code, its program and the text of its primary
//! source line, trimmed and with runs of white space made one space: it
//! survives code moving up or down, and changes when the line itself
//! changes. A finding with no readable line is keyed by its message
//! instead. Keys are counted: two identical findings on two identical lines
//! need two entries.
//!
//! Pure: the caller loads files and says how a program is named in the
//! baseline (relative to the baseline file, so that the file works from any
//! directory).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::finding::Finding;
use crate::model::Report;

/// The version written in (and required of) a baseline file.
pub const VERSION: u32 = 1;

/// A baseline file: its version and its entries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub fib_baseline: u32,
    pub findings: Vec<Entry>,
}

/// One key and how many findings have it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub program: String,
    pub code: String,
    /// The finding's line, normalised; or its message when it has none.
    pub text: String,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: usize,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// A finding's key: (program, code, text).
pub type Key = (String, String, String);

/// The key of finding `f` of `program` (as the baseline names it).
pub fn key(f: &Finding, program: &str, load: &mut dyn FnMut(&str) -> Option<String>) -> Key {
    let line = match (&f.file, f.line) {
        (Some(file), Some(line)) if line >= 1 => load(file)
            .and_then(|text| text.lines().nth(line as usize - 1).map(normalise))
            .filter(|l| !l.is_empty()),
        _ => None,
    };
    (
        program.to_string(),
        f.code.code.to_string(),
        line.unwrap_or_else(|| f.message.clone()),
    )
}

/// A line trimmed, with each run of white space made one space.
fn normalise(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Why a baseline file could not be used.
#[derive(Debug, PartialEq, Eq)]
pub struct BadBaseline(pub String);

impl std::fmt::Display for BadBaseline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadBaseline {}

impl Baseline {
    /// Every finding of `report`, keyed; `program` names a program (by its
    /// name in the report) as the baseline does.
    pub fn of(
        report: &Report,
        program: &dyn Fn(&str) -> String,
        load: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Baseline {
        let mut counts: BTreeMap<Key, usize> = BTreeMap::new();
        for p in &report.programs {
            let name = program(&p.program);
            for f in &p.findings {
                *counts.entry(key(f, &name, load)).or_default() += 1;
            }
        }
        Baseline {
            fib_baseline: VERSION,
            findings: counts
                .into_iter()
                .map(|((program, code, text), count)| Entry {
                    program,
                    code,
                    text,
                    count,
                })
                .collect(),
        }
    }

    /// A baseline from the text of its file.
    pub fn parse(text: &str) -> Result<Baseline, BadBaseline> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| BadBaseline(e.to_string()))?;
        if b.fib_baseline != VERSION {
            return Err(BadBaseline(format!(
                "version {} is not one this fib reads (it writes version {VERSION})",
                b.fib_baseline
            )));
        }
        if let Some(e) = b.findings.iter().find(|e| e.count == 0) {
            return Err(BadBaseline(format!(
                "the entry for {} in {} has count 0",
                e.code, e.program
            )));
        }
        Ok(b)
    }

    /// The baseline as the JSON of its file, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).expect("a baseline serialises to JSON");
        out.push('\n');
        out
    }

    /// Takes out of `report` every finding the baseline knows, up to each
    /// key's count, in report order; each program's `workflow.baselined`
    /// says how many it lost.
    pub fn apply(
        &self,
        report: &mut Report,
        program: &dyn Fn(&str) -> String,
        load: &mut dyn FnMut(&str) -> Option<String>,
    ) {
        let mut left: BTreeMap<Key, usize> = BTreeMap::new();
        for e in &self.findings {
            *left
                .entry((e.program.clone(), e.code.clone(), e.text.clone()))
                .or_default() += e.count;
        }
        for p in &mut report.programs {
            let name = program(&p.program);
            let mut kept = Vec::with_capacity(p.findings.len());
            for f in std::mem::take(&mut p.findings) {
                match left.get_mut(&key(&f, &name, load)) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        p.workflow.baselined += 1;
                    }
                    _ => kept.push(f),
                }
            }
            p.findings = kept;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::{ExplorationCut, Inputs, IrrelevantBarrier, Rule};
    use crate::model::{Buffering, Outcome, ProgramReport, SiteRef, Timing, Workflow};

    fn barrier(line: u32) -> Finding {
        IrrelevantBarrier {
            purposes: vec![],
            group: vec![SiteRef {
                file: "a.c".into(),
                line,
                column: 5,
                span: None,
            }],
            inputs: Inputs::Every,
            interleavings: 1,
            ranks: 2,
            instances: 2,
            cut: false,
            note: None,
            ordered_by: None,
        }
        .finding()
    }

    fn report(findings: Vec<Finding>) -> Report {
        Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![ProgramReport {
                program: "src/a.c".into(),
                nprocs: 2,
                buffering: Buffering::Buffered,
                outcome: Outcome::Ok,
                interleavings: 1,
                findings,
                calls: 0,
                build: None,
                static_facts: None,
                barriers: vec![],
                timing: Timing::default(),
                elapsed_ms: 0,
                interrupted: false,
                sends_copied: false,
                files: None,
                workflow: Workflow::default(),
            }],
        }
    }

    const BEFORE: &str =
        "int main() {\n    MPI_Barrier(MPI_COMM_WORLD);\n    MPI_Barrier(MPI_COMM_WORLD);\n}\n";
    const MOVED: &str =
        "\n\n/* new */\nint main() {\n  MPI_Barrier(MPI_COMM_WORLD);\n\n\tMPI_Barrier( MPI_COMM_WORLD);\n  MPI_Barrier(MPI_COMM_WORLD);\n}\n";

    fn name(p: &str) -> String {
        p.trim_start_matches("src/").to_string()
    }

    #[test]
    fn keys_are_the_normalised_line_or_the_message() {
        let mut load = |_: &str| Some(MOVED.to_string());
        let k = key(&barrier(7), "a.c", &mut load);
        assert_eq!(
            k,
            (
                "a.c".into(),
                "FIB014".into(),
                "MPI_Barrier( MPI_COMM_WORLD);".into()
            )
        );
        let cut = ExplorationCut {
            max_interleavings: 3,
        }
        .finding();
        assert_eq!(key(&cut, "a.c", &mut load).2, cut.message);
        // A line past the end of the file: the message.
        assert_eq!(key(&barrier(90), "a.c", &mut load).2, barrier(90).message);
    }

    #[test]
    fn moved_lines_stay_known_and_identical_lines_are_counted() {
        let b = Baseline::of(&report(vec![barrier(2), barrier(3)]), &name, &mut |_| {
            Some(BEFORE.into())
        });
        assert_eq!(
            b.findings,
            vec![Entry {
                program: "a.c".into(),
                code: "FIB014".into(),
                text: "MPI_Barrier(MPI_COMM_WORLD);".into(),
                count: 2,
            }]
        );
        let text = b.to_json();
        assert!(text.contains("\"count\": 2"), "{text}");
        assert_eq!(Baseline::parse(&text), Ok(b.clone()));

        // Moved down three lines: both known. A third identical line is new.
        let mut r = report(vec![barrier(5), barrier(8)]);
        b.apply(&mut r, &name, &mut |_| Some(MOVED.into()));
        assert!(r.programs[0].findings.is_empty());
        assert_eq!(r.programs[0].workflow.baselined, 2);
        assert_eq!(r.exit_code(), 0);

        // A line whose text changed is new; so is a third finding with the
        // known text, once the two known ones are taken.
        let mut r = report(vec![barrier(5), barrier(7), barrier(8), barrier(5)]);
        b.apply(&mut r, &name, &mut |_| Some(MOVED.into()));
        assert_eq!(r.programs[0].workflow.baselined, 2);
        let lines: Vec<Option<u32>> = r.programs[0].findings.iter().map(|f| f.line).collect();
        assert_eq!(lines, [Some(7), Some(5)]);
        assert_eq!(r.exit_code(), 1);
    }

    #[test]
    fn bad_files_say_why() {
        assert!(Baseline::parse("{").unwrap_err().0.contains("EOF"));
        let e = Baseline::parse(r#"{"fib_baseline": 1, "findings": [], "extra": 1}"#).unwrap_err();
        assert!(e.0.contains("unknown field `extra`"), "{e}");
        let e = Baseline::parse(r#"{"fib_baseline": 7, "findings": []}"#).unwrap_err();
        assert_eq!(
            e.0,
            "version 7 is not one this fib reads (it writes version 1)"
        );
        let ok = Baseline::parse(
            r#"{"fib_baseline": 1, "findings": [{"program": "a.c", "code": "FIB001", "text": "x"}]}"#,
        )
        .unwrap();
        assert_eq!(ok.findings[0].count, 1);
    }
}
