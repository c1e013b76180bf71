//! What several rules share: the placement and labels of deadlock-like
//! findings (FIB001, FIB009, FIB010, FIB023), the program's own error output
//! with the launcher's banners left out, signal names, rank lists of the leak
//! findings, and the parts of the barrier findings (FIB014, FIB015, FIB016)
//! that the three have in common, with [`barrier_finding`] choosing among
//! them from a barrier group's report.

use std::collections::BTreeMap;

use super::{BarrierNotCovered, IrrelevantBarrier, RelevantBarrier, RelevantForMemory, Rule};
use crate::finding::{Finding, Label, RankState};
use crate::model::{BarrierReport, SiteRef, Verdict, Witness};

/// Puts a deadlock-like finding at its first blocked rank (or its first rank
/// when none is blocked), with that rank's span, and returns the blocked
/// ranks as "rank 0 in MPI_Recv, rank 1 in MPI_Send".
pub(crate) fn at_blocked_ranks(f: &mut Finding) -> String {
    let blocked: Vec<&RankState> = f
        .ranks
        .iter()
        .filter(|s| s.call != "finished" && s.call != "MPI_Finalize")
        .collect();
    if let Some(s) = blocked.first().copied().or(f.ranks.first()) {
        f.file = s.file.clone();
        f.line = s.line;
        f.column = s.column;
        f.span = s.span;
        f.rank = Some(s.rank);
    }
    let what: Vec<String> = blocked
        .iter()
        .map(|s| match s.thread {
            Some(t) => format!("rank {} (thread {t}) in {}", s.rank, s.call),
            None => format!("rank {} in {}", s.rank, s.call),
        })
        .collect();
    what.join(", ")
}

/// Puts a finding at a rank's state: its place, span and rank.
pub(crate) fn at_rank(f: &mut Finding, s: &RankState) {
    f.file = s.file.clone();
    f.line = s.line;
    f.column = s.column;
    f.span = s.span;
    f.rank = Some(s.rank);
}

/// The other ranks' calls of a deadlock or mismatch, on the source too: one
/// label per place (file, line and column all known) other than the primary
/// one and per call there, naming its ranks. Ranks that finished, run or
/// wait in `MPI_Finalize` are not labelled.
pub(crate) fn label_other_ranks(f: &mut Finding) {
    // (file, line, column), the ranks there, their call, the span.
    type Group = (
        (String, u32, u32),
        Vec<usize>,
        String,
        Option<(usize, usize)>,
    );
    let mut places: Vec<Group> = Vec::new();
    for s in &f.ranks {
        let waiting = !matches!(s.call.as_str(), "finished" | "running" | "MPI_Finalize");
        let (Some(file), Some(line), Some(column)) = (&s.file, s.line, s.column) else {
            continue;
        };
        let key = (file.clone(), line, column);
        if !waiting || (f.file.as_ref(), f.line, f.column) == (Some(file), Some(line), Some(column))
        {
            continue;
        }
        match places
            .iter_mut()
            .find(|(k, _, call, _)| *k == key && *call == s.call)
        {
            Some((_, ranks, _, _)) => ranks.push(s.rank),
            None => places.push((key, vec![s.rank], s.call.clone(), s.span)),
        }
    }
    for ((file, line, column), ranks, call, span) in places {
        let who: Vec<String> = ranks.iter().map(usize::to_string).collect();
        f.labels.push(Label {
            file,
            line,
            column,
            span,
            message: format!(
                "{} {}: {call}",
                if ranks.len() == 1 { "rank" } else { "ranks" },
                who.join(", ")
            ),
        });
    }
}

/// The lines of the program's stderr worth showing: at most 12, without
/// empty lines and without the launcher's banners.
pub fn program_stderr(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty()
                && !t.starts_with("====")
                && !t.contains("BAD TERMINATION")
                && !t.starts_with("=   ")
                && !t.contains("CLEANING UP REMAINING PROCESSES")
                && !t.contains("YOU CAN IGNORE THE BELOW CLEANUP MESSAGES")
                && !t.starts_with("PID ")
                && !t.starts_with("EXIT CODE")
                && !t.starts_with("YOUR APPLICATION TERMINATED")
                && !t.starts_with("This typically refers to a problem")
                && !t.starts_with("or a segmentation fault")
                && !t.starts_with("a segmentation fault")
        })
        .take(12)
        .map(str::to_string)
        .collect()
}

/// The name and meaning of the fatal signal numbered `sig`, such as
/// `SIGSEGV (segmentation fault)`, or `a fatal signal` for others.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV (segmentation fault)",
        libc::SIGBUS => "SIGBUS (bus error)",
        libc::SIGFPE => "SIGFPE (arithmetic error)",
        libc::SIGILL => "SIGILL (illegal instruction)",
        libc::SIGABRT => "SIGABRT (abort, e.g. a failed assert)",
        _ => "a fatal signal",
    }
}

/// "rank 3" or "ranks 0, 1, 2".
pub(crate) fn list(word: &str, items: &[usize]) -> String {
    let joined: Vec<String> = items.iter().map(usize::to_string).collect();
    if items.len() == 1 {
        format!("{word} {}", joined[0])
    } else {
        format!("{word}s {}", joined.join(", "))
    }
}

/// " (3 times)" when a leak happened more than once, else nothing.
pub(crate) fn times(count: usize) -> String {
    if count > 1 {
        format!(" ({count} times)")
    } else {
        String::new()
    }
}

/// The message of a leak finding: its ranks first, "rank 3: ..." or "ranks
/// 0, 1: ...", then `what`, then how many times.
pub(crate) fn leak_message(ranks: &[usize], what: &str, count: usize) -> String {
    let mut ranks = ranks.to_vec();
    ranks.sort_unstable();
    format!("{}: {what}{}", list("rank", &ranks), times(count))
}

/// The rank a leak finding names: the only one, when one rank leaked.
pub(crate) fn leak_rank(ranks: &[usize]) -> Option<usize> {
    (ranks.len() == 1).then(|| ranks[0])
}

/// For which inputs a barrier verdict holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// Only rank, size and constants decide whether the group's sites run.
    Every,
    /// A branch on input decides; `reason` says which (the first reason of
    /// the group's sites).
    Tested { reason: String },
}

impl Inputs {
    /// From a barrier report's `all_inputs` and the reasons its sites depend
    /// on input.
    pub fn of(all_inputs: bool, reasons: &[String]) -> Inputs {
        if all_inputs {
            Inputs::Every
        } else {
            Inputs::Tested {
                reason: reasons.first().cloned().unwrap_or_default(),
            }
        }
    }

    /// The note that says it.
    pub(crate) fn note(&self) -> String {
        match self {
            Inputs::Every => "the verdict holds for every input: only rank, size and constants decide whether these sites run".to_string(),
            Inputs::Tested { reason } => format!("the verdict holds for the input tested: {reason}"),
        }
    }
}

/// A barrier finding at the group's first site, with a label on each other
/// site. The group has at least one site.
pub(crate) fn barrier_group(f: &mut Finding, group: &[SiteRef]) {
    let Some(first) = group.first() else {
        return;
    };
    f.file = Some(first.file.clone());
    // Line 0: a site by return address that no debug information places.
    f.line = (first.line > 0).then_some(first.line);
    f.column = (first.column > 0).then_some(first.column);
    f.span = first.span;
    f.labels = group[1..]
        .iter()
        .map(|s| Label {
            file: s.file.clone(),
            line: s.line,
            column: s.column,
            span: s.span,
            message: "also part of this barrier group".into(),
        })
        .collect();
}

/// "line 13 of a.c", "lines 13, 17 of a.c and line 8 of b.c": the group's
/// lines by file, files in name order; a site with no line (0: a call in a
/// prebuilt binary without debug information) is "the call at prog(main+0x2b)".
pub(crate) fn group_lines(group: &[SiteRef]) -> String {
    let mut by_file: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for s in group {
        by_file.entry(&s.file).or_default().push(s.line);
    }
    by_file
        .iter()
        .map(|(f, ls)| {
            if ls.iter().all(|&l| l == 0) {
                return format!("the call at {f}");
            }
            let ls: Vec<String> = ls.iter().map(u32::to_string).collect();
            format!(
                "{} {} of {f}",
                if ls.len() == 1 { "line" } else { "lines" },
                ls.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The finding that shows a barrier group's verdict on its sites: FIB015
/// for a relevant group with its witness, FIB014 for an irrelevant one,
/// FIB016 otherwise (a group that never ran, or one found relevant by
/// removal, which gives no witness). `reasons` are why the group's sites
/// depend on input; `note` is added last (e.g. that the program fails);
/// `cut` says exploration stopped at `--max-interleavings`, which an
/// irrelevant verdict then mentions.
pub fn barrier_finding(
    r: &BarrierReport,
    reasons: &[String],
    note: Option<&str>,
    cut: bool,
) -> Finding {
    let inputs = Inputs::of(r.all_inputs, reasons);
    let note = note.map(str::to_string);
    match (&r.verdict, &r.witness) {
        (
            Verdict::Relevant,
            Some(Witness::Relevant {
                recv,
                send,
                path,
                replay,
            }),
        ) => RelevantBarrier {
            group: r.group.clone(),
            inputs,
            recv: recv.clone(),
            send: send.clone(),
            path: path.clone(),
            replay: replay.clone(),
            note,
        }
        .finding(),
        (
            Verdict::Irrelevant,
            Some(Witness::Irrelevant {
                interleavings,
                ranks,
                instances,
                ordered_by,
            }),
        ) => IrrelevantBarrier {
            group: r.group.clone(),
            inputs,
            interleavings: *interleavings,
            ranks: *ranks,
            instances: *instances,
            cut,
            note,
            purposes: r.purposes.clone(),
            ordered_by: ordered_by.clone(),
        }
        .finding(),
        (
            Verdict::Relevant,
            Some(Witness::Memory {
                kind,
                first,
                second,
                locks,
                path,
                replay,
            }),
        ) => RelevantForMemory {
            group: r.group.clone(),
            inputs,
            kind: *kind,
            first: first.clone(),
            second: second.clone(),
            locks: locks.clone(),
            path: path.clone(),
            replay: replay.clone(),
            note,
        }
        .finding(),
        _ => BarrierNotCovered {
            group: r.group.clone(),
            inputs: (r.verdict != Verdict::NotCovered).then_some(inputs),
            note,
            gates: Vec::new(),
        }
        .finding(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::codes::{Deadlock, FIB014, FIB015, FIB016};
    use crate::model::WitnessOp;

    /// A rank's state at `file:line:column`, with a span made of the line
    /// and column so that tests can tell spans apart.
    pub(crate) fn rank(rank: usize, call: &str, place: Option<(&str, u32, u32)>) -> RankState {
        RankState {
            rank,
            call: call.into(),
            file: place.map(|p| p.0.to_string()),
            line: place.map(|p| p.1),
            column: place.map(|p| p.2),
            span: place.map(|p| (p.1 as usize * 100 + p.2 as usize, p.1 as usize * 100 + 50)),
            thread: None,
        }
    }

    /// A site with a span made of its line and column.
    pub(crate) fn site(file: &str, line: u32, column: u32) -> SiteRef {
        SiteRef {
            file: file.into(),
            line,
            column,
            span: Some((
                line as usize * 100 + column as usize,
                line as usize * 100 + 50,
            )),
        }
    }

    /// A label as `file:line:column span message`, for comparing.
    pub(crate) fn shown(l: &Label) -> String {
        format!(
            "{}:{}:{} {:?} {}",
            l.file, l.line, l.column, l.span, l.message
        )
    }

    /// A witness operation at a site.
    pub(crate) fn op(s: &SiteRef, rank: usize, call: &str) -> WitnessOp {
        WitnessOp {
            file: Some(s.file.clone()),
            line: Some(s.line),
            column: Some(s.column),
            rank,
            call: call.into(),
            span: s.span,
        }
    }

    #[test]
    fn launcher_banners_are_left_out_of_program_stderr() {
        let text = "prog: x.c:8: main: Assertion `r' failed.\n\n===================\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 12 RUNNING AT vm\n";
        assert_eq!(
            program_stderr(text),
            vec!["prog: x.c:8: main: Assertion `r' failed.".to_string()]
        );
        let many: String = (0..20).map(|i| format!("line {i}\n")).collect();
        assert_eq!(program_stderr(&many).len(), 12);
    }

    #[test]
    fn signals_are_named() {
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV (segmentation fault)");
        assert_eq!(
            signal_name(libc::SIGABRT),
            "SIGABRT (abort, e.g. a failed assert)"
        );
        assert_eq!(signal_name(libc::SIGKILL), "a fatal signal");
    }

    #[test]
    fn rank_lists_read_naturally() {
        assert_eq!(list("rank", &[3]), "rank 3");
        assert_eq!(list("rank", &[0, 1, 2]), "ranks 0, 1, 2");
        assert_eq!(times(1), "");
        assert_eq!(times(4), " (4 times)");
        assert_eq!(leak_message(&[2, 0], "x", 3), "ranks 0, 2: x (3 times)");
        assert_eq!(leak_rank(&[2]), Some(2));
        assert_eq!(leak_rank(&[0, 2]), None);
    }

    #[test]
    fn a_deadlock_is_placed_at_its_first_blocked_rank() {
        let f = Deadlock {
            ranks: vec![
                rank(0, "MPI_Finalize", Some(("a.c", 30, 5))),
                rank(1, "MPI_Recv", Some(("a.c", 12, 9))),
                rank(2, "MPI_Recv", Some(("a.c", 12, 9))),
            ],
            replay: "0".into(),
        }
        .finding();
        assert_eq!(
            (f.file.as_deref(), f.line, f.column, f.rank),
            (Some("a.c"), Some(12), Some(9), Some(1))
        );
        assert_eq!(f.span, Some((1209, 1250)));
        // Rank 2 waits where rank 1 does, the primary place: no label.
        assert!(f.labels.is_empty());
    }

    #[test]
    fn without_a_blocked_rank_a_deadlock_is_at_its_first_rank() {
        let mut f = Finding::new(&crate::codes::FIB001, "");
        f.ranks = vec![
            rank(3, "finished", None),
            rank(4, "MPI_Finalize", Some(("a.c", 30, 5))),
        ];
        assert_eq!(at_blocked_ranks(&mut f), "");
        assert_eq!((f.rank, f.file), (Some(3), None));
    }

    #[test]
    fn other_ranks_are_labelled_by_place_and_call() {
        let mut f = Finding::new(&crate::codes::FIB001, "");
        f.ranks = vec![
            rank(0, "MPI_Recv", Some(("a.c", 10, 9))),
            rank(1, "MPI_Send", Some(("a.c", 20, 9))),
            rank(2, "MPI_Send", Some(("a.c", 20, 9))),
            rank(3, "MPI_Ssend", Some(("a.c", 20, 9))),
            rank(4, "running", Some(("a.c", 40, 1))),
            rank(5, "MPI_Recv", Some(("b.c", 7, 3))),
            rank(6, "MPI_Recv", None),
        ];
        at_blocked_ranks(&mut f);
        label_other_ranks(&mut f);
        let labels: Vec<String> = f.labels.iter().map(shown).collect();
        assert_eq!(
            labels,
            [
                "a.c:20:9 Some((2009, 2050)) ranks 1, 2: MPI_Send",
                "a.c:20:9 Some((2009, 2050)) rank 3: MPI_Ssend",
                "b.c:7:3 Some((703, 750)) rank 5: MPI_Recv",
            ]
        );
    }

    #[test]
    fn group_lines_are_by_file() {
        let g = [site("b.c", 8, 5), site("a.c", 13, 9), site("a.c", 17, 9)];
        assert_eq!(group_lines(&g), "lines 13, 17 of a.c and line 8 of b.c");
        assert_eq!(group_lines(&g[..1]), "line 8 of b.c");
        let no_line = [site("prog(main+0x2b)", 0, 0)];
        assert_eq!(group_lines(&no_line), "the call at prog(main+0x2b)");
    }

    fn report(verdict: Verdict, witness: Option<Witness>, all_inputs: bool) -> BarrierReport {
        BarrierReport {
            purposes: vec![],
            group: vec![site("a.c", 13, 9), site("a.c", 17, 9)],
            verdict,
            confirmed: false,
            all_inputs,
            witness,
            timeline: None,
        }
    }

    #[test]
    fn barrier_finding_chooses_the_code_by_verdict_and_witness() {
        let recv = site("a.c", 21, 9);
        let send = site("a.c", 29, 9);
        let relevant = Witness::Relevant {
            recv: op(&recv, 0, "MPI_Recv"),
            send: op(&send, 2, "MPI_Send"),
            path: vec!["x".into()],
            replay: "0".into(),
        };
        let irrelevant = Witness::Irrelevant {
            interleavings: 1,
            ranks: 2,
            instances: 2,
            ordered_by: None,
        };
        let reasons = ["`if (argc > 1)` reads `argc`".to_string()];
        let f = barrier_finding(
            &report(Verdict::Relevant, Some(relevant), true),
            &[],
            None,
            false,
        );
        assert_eq!(f.code, &FIB015);
        let f = barrier_finding(
            &report(Verdict::Irrelevant, Some(irrelevant.clone()), false),
            &reasons,
            Some("the program fails"),
            true,
        );
        assert_eq!(f.code, &FIB014);
        assert_eq!(
            f.notes,
            vec![
                "the verdict holds for the input tested: `if (argc > 1)` reads `argc`".to_string(),
                "checked over 1 interleaving, 2 barrier calls on 2 ranks".to_string(),
                "the program fails".to_string(),
            ]
        );
        assert!(f.message.contains("(--max-interleavings)"));
        let f = barrier_finding(
            &report(Verdict::NotCovered, None, false),
            &reasons,
            None,
            true,
        );
        assert_eq!(f.code, &FIB016);
        assert!(f.notes.is_empty());
        // Relevant by removal has no witness: worded as not covered, with
        // the inputs note of a verdict.
        let f = barrier_finding(&report(Verdict::Relevant, None, true), &[], None, false);
        assert_eq!(f.code, &FIB016);
        assert_eq!(f.notes, vec![Inputs::Every.note()]);
    }
}
