//! The view across process counts: when one check ran a program at several
//! counts (`-n 2,4,8`), which of its findings and barrier verdicts hold at
//! which counts. Computed from the per-count reports, so that a check at one
//! count has no such view and prints exactly what it always did.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Serialize;

use crate::model::{Report, SiteRef, Verdict};

/// One program checked at several counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramCounts {
    pub program: String,
    /// The counts it was checked at, ascending.
    pub nprocs: Vec<usize>,
    /// Each finding (by code and primary location) and the counts it was
    /// reported at, in the order first reported.
    pub findings: Vec<FindingCounts>,
    /// Each barrier group (by its sites) and its verdict at each count.
    pub barriers: Vec<BarrierCounts>,
}

/// A finding and the counts it appears at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FindingCounts {
    pub code: &'static str,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub nprocs: Vec<usize>,
}

/// A barrier group and its verdicts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BarrierCounts {
    pub group: Vec<SiteRef>,
    /// Each verdict the group got, with the counts it got it at.
    pub verdicts: Vec<VerdictCounts>,
}

/// One verdict and the counts it holds at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerdictCounts {
    pub verdict: Verdict,
    pub nprocs: Vec<usize>,
}

/// The view for every program of `report` checked at more than one count,
/// in report order.
pub fn counts(report: &Report) -> Vec<ProgramCounts> {
    let mut names: Vec<&str> = Vec::new();
    for p in &report.programs {
        if !names.contains(&p.program.as_str()) {
            names.push(&p.program);
        }
    }
    let mut out = Vec::new();
    for name in names {
        let reports: Vec<_> = report
            .programs
            .iter()
            .filter(|p| p.program == name)
            .collect();
        let nprocs: BTreeSet<usize> = reports.iter().map(|p| p.nprocs).collect();
        if nprocs.len() < 2 {
            continue;
        }
        let mut view = ProgramCounts {
            program: name.to_string(),
            nprocs: nprocs.into_iter().collect(),
            findings: Vec::new(),
            barriers: Vec::new(),
        };
        for p in &reports {
            for f in &p.findings {
                let at = view
                    .findings
                    .iter()
                    .position(|c| c.code == f.code.code && c.file == f.file && c.line == f.line);
                let at = at.unwrap_or_else(|| {
                    view.findings.push(FindingCounts {
                        code: f.code.code,
                        file: f.file.clone(),
                        line: f.line,
                        nprocs: Vec::new(),
                    });
                    view.findings.len() - 1
                });
                add(&mut view.findings[at].nprocs, p.nprocs);
            }
            for b in &p.barriers {
                let key = sites(&b.group);
                let at = view.barriers.iter().position(|c| sites(&c.group) == key);
                let at = at.unwrap_or_else(|| {
                    view.barriers.push(BarrierCounts {
                        group: b.group.clone(),
                        verdicts: Vec::new(),
                    });
                    view.barriers.len() - 1
                });
                let verdicts = &mut view.barriers[at].verdicts;
                match verdicts.iter_mut().find(|v| v.verdict == b.verdict) {
                    Some(v) => add(&mut v.nprocs, p.nprocs),
                    None => verdicts.push(VerdictCounts {
                        verdict: b.verdict,
                        nprocs: vec![p.nprocs],
                    }),
                }
            }
        }
        for b in &mut view.barriers {
            b.verdicts.sort_by_key(|v| v.nprocs.first().copied());
        }
        out.push(view);
    }
    out
}

fn add(counts: &mut Vec<usize>, n: usize) {
    if let Err(i) = counts.binary_search(&n) {
        counts.insert(i, n);
    }
}

/// A group's sites as a sorted set of places.
fn sites(group: &[SiteRef]) -> BTreeSet<(&str, u32, u32)> {
    group
        .iter()
        .map(|s| (s.file.as_str(), s.line, s.column))
        .collect()
}

/// `2, 4 ranks`, or `every count` when `at` is all of `all`.
fn at_counts(at: &[usize], all: &[usize]) -> String {
    if at == all {
        return "every count".to_string();
    }
    let list: Vec<String> = at.iter().map(usize::to_string).collect();
    let unit = if at == [1] { "rank" } else { "ranks" };
    format!("{} {unit}", list.join(", "))
}

/// The view for a terminal: per program a heading, a line per finding and
/// a line per barrier group. Empty when `counts` is.
pub fn render_human(counts: &[ProgramCounts]) -> String {
    let mut out = String::new();
    for p in counts {
        let all: Vec<String> = p.nprocs.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "{} by process count ({} ranks):",
            p.program,
            all.join(", ")
        );
        if p.findings.is_empty() && p.barriers.is_empty() {
            let _ = writeln!(out, "  no findings at any count");
        }
        for f in &p.findings {
            let name = crate::codes::lookup(f.code).map_or("", |c| c.name);
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!(" at {file}:{line}"),
                (Some(file), None) => format!(" in {file}"),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  {} {name}{place}: {}",
                f.code,
                at_counts(&f.nprocs, &p.nprocs)
            );
        }
        for b in &p.barriers {
            let places: Vec<String> = b
                .group
                .iter()
                .map(|s| format!("{}:{}", s.file, s.line))
                .collect();
            let verdicts: Vec<String> = b
                .verdicts
                .iter()
                .map(|v| {
                    let verdict = match v.verdict {
                        Verdict::Relevant => "relevant",
                        Verdict::Irrelevant => "irrelevant",
                        Verdict::NotCovered => "not covered",
                        Verdict::Undecided => "not decided",
                    };
                    format!("{verdict} at {}", at_counts(&v.nprocs, &p.nprocs))
                })
                .collect();
            let _ = writeln!(
                out,
                "  barrier group {}: {}",
                places.join(", "),
                verdicts.join("; ")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::{Deadlock, Rule};
    use crate::finding::RankState;
    use crate::model::{BarrierReport, Buffering, Outcome, ProgramReport, Timing, Workflow};

    fn site(line: u32) -> SiteRef {
        SiteRef {
            file: "p.c".into(),
            line,
            column: 5,
            span: None,
        }
    }

    fn program(name: &str, nprocs: usize, deadlock: bool, verdict: Verdict) -> ProgramReport {
        let findings = if deadlock {
            vec![Deadlock {
                ranks: vec![RankState {
                    rank: 0,
                    call: "MPI_Recv".into(),
                    file: Some("p.c".into()),
                    line: Some(12),
                    column: Some(5),
                    span: None,
                    thread: None,
                }],
                replay: "0".into(),
            }
            .finding()]
        } else {
            vec![]
        };
        ProgramReport {
            program: name.into(),
            nprocs,
            buffering: Buffering::Buffered,
            outcome: Outcome::Ok,
            interleavings: 1,
            findings,
            calls: 0,
            build: None,
            static_facts: None,
            barriers: vec![BarrierReport {
                purposes: vec![],
                group: vec![site(20), site(24)],
                verdict,
                confirmed: false,
                all_inputs: true,
                witness: None,
                timeline: None,
            }],
            timing: Timing::default(),
            elapsed_ms: 0,
            interrupted: false,
            sends_copied: false,
            files: None,
            workflow: Workflow::default(),
        }
    }

    #[test]
    fn one_count_has_no_view() {
        let r = Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![
                program("p.c", 2, true, Verdict::Relevant),
                program("q.c", 3, false, Verdict::Relevant),
            ],
        };
        assert_eq!(counts(&r), vec![]);
        assert_eq!(render_human(&counts(&r)), "");
    }

    #[test]
    fn findings_and_verdicts_by_count() {
        let r = Report {
            interrupted: false,
            not_checked: Vec::new(),
            programs: vec![
                program("p.c", 2, false, Verdict::Irrelevant),
                program("p.c", 3, true, Verdict::Relevant),
                program("p.c", 4, true, Verdict::Irrelevant),
            ],
        };
        let v = counts(&r);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].nprocs, [2, 3, 4]);
        assert_eq!(v[0].findings.len(), 1);
        assert_eq!(
            (v[0].findings[0].code, v[0].findings[0].line),
            ("FIB001", Some(12))
        );
        assert_eq!(v[0].findings[0].nprocs, [3, 4]);
        let verdicts: Vec<(Verdict, Vec<usize>)> = v[0].barriers[0]
            .verdicts
            .iter()
            .map(|v| (v.verdict, v.nprocs.clone()))
            .collect();
        assert_eq!(
            verdicts,
            [
                (Verdict::Irrelevant, vec![2, 4]),
                (Verdict::Relevant, vec![3])
            ]
        );
        assert_eq!(
            render_human(&v),
            "\
p.c by process count (2, 3, 4 ranks):
  FIB001 deadlock at p.c:12: 3, 4 ranks
  barrier group p.c:20, p.c:24: irrelevant at 2, 4 ranks; relevant at 3 ranks
"
        );
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json[0]["findings"][0]["nprocs"], serde_json::json!([3, 4]));
        assert_eq!(json[0]["barriers"][0]["verdicts"][1]["verdict"], "relevant");
        assert_eq!(json[0]["barriers"][0]["group"][1]["line"], 24);
    }
}
