//! Severity overrides: the `[severity]` table of `fib.toml`, which gives
//! the findings of a code another severity, or turns them off.

use crate::codes::Code;
use crate::finding::Severity;
use crate::model::ProgramReport;

/// What the configuration makes of a code's findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Shown with this severity (which decides the exit code).
    Show(Severity),
    /// Left out of the report, and of the exit code.
    Off,
}

impl Level {
    /// The level named `error`, `warning`, `note` or `off`.
    pub fn parse(name: &str) -> Option<Level> {
        Some(match name {
            "error" => Level::Show(Severity::Error),
            "warning" => Level::Show(Severity::Warning),
            "note" => Level::Show(Severity::Note),
            "off" => Level::Off,
            _ => return None,
        })
    }
}

/// Applies `overrides` to the findings of `report`: a finding whose code is
/// listed gets the listed severity, or leaves the report (counted in
/// `workflow.off`) when the level is [`Level::Off`]. A severity equal to
/// the code's own changes nothing.
pub fn apply(report: &mut ProgramReport, overrides: &[(&'static Code, Level)]) {
    if overrides.is_empty() {
        return;
    }
    let level = |code: &Code| {
        overrides
            .iter()
            .find(|(c, _)| c.code == code.code)
            .map(|(_, l)| *l)
    };
    let before = report.findings.len();
    report
        .findings
        .retain(|f| level(f.code) != Some(Level::Off));
    report.workflow.off += before - report.findings.len();
    for f in &mut report.findings {
        if let Some(Level::Show(s)) = level(f.code) {
            if s != f.code.severity {
                f.override_severity(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::{ExplorationCut, Rule, FIB011, FIB024};
    use crate::model::{Buffering, Outcome, Report, Timing, Workflow};

    fn report() -> ProgramReport {
        ProgramReport {
            program: "a.c".into(),
            nprocs: 2,
            buffering: Buffering::Buffered,
            outcome: Outcome::Ok,
            interleavings: 1,
            findings: vec![ExplorationCut {
                max_interleavings: 5,
            }
            .finding()],
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
        }
    }

    #[test]
    fn levels_by_name() {
        assert_eq!(Level::parse("note"), Some(Level::Show(Severity::Note)));
        assert_eq!(Level::parse("off"), Some(Level::Off));
        assert_eq!(Level::parse("Error"), None);
    }

    #[test]
    fn a_lowered_warning_no_longer_fails_and_shows_its_new_severity() {
        let mut p = report();
        let before = serde_json::to_string(&p).unwrap();
        apply(&mut p, &[(&FIB024, Level::Off)]);
        assert_eq!(serde_json::to_string(&p).unwrap(), before, "untouched");
        let mut r = Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![p.clone()],
        };
        assert_eq!(r.exit_code(), 1);
        apply(
            &mut r.programs[0],
            &[(&FIB011, Level::Show(Severity::Note))],
        );
        assert_eq!(r.programs[0].findings[0].severity(), Severity::Note);
        assert_eq!(r.exit_code(), 0);
        let json = serde_json::to_value(&r.programs[0].findings[0]).unwrap();
        assert_eq!(json["severity"], "note");
    }

    #[test]
    fn off_takes_findings_out() {
        let mut r = Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![report()],
        };
        r.programs[0].outcome = Outcome::Deadlock;
        apply(&mut r.programs[0], &[(&FIB011, Level::Off)]);
        assert!(r.programs[0].findings.is_empty());
        assert_eq!(r.programs[0].workflow.off, 1);
        // The outcome alone no longer fails once findings were taken out.
        assert_eq!(r.exit_code(), 0);
    }
}
