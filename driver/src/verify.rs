//! Verifies one program: builds it, explores its interleavings run by run,
//! and turns what the runs showed into findings.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fib_report::{
    Buffering, BuildKind, Finding, Outcome, ProgramReport, RankState, Report, Severity, SiteFact,
    StaticFacts, Timing, Verdict,
};
use fib_wire::Site;
use instrument::Dependence;
use poe::engine::{ChoicePoint, RankView, RunEnd};
use poe::{Explorer, Token};

use crate::barriers;
use crate::leaks;
use crate::program::{self, Program, Tree};
use crate::server::{self, Ending, RunRecord, RunSpec};
use crate::DriverError;

/// How to verify programs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The process count; when `None`, a program's `fib:` directive, else 2.
    pub nprocs: Option<usize>,
    pub zero_buffer: bool,
    /// The time limit of one interleaving.
    pub timeout: Duration,
    /// Run only this interleaving.
    pub replay: Option<Token>,
    /// Stop exploring after this many interleavings.
    pub max_interleavings: usize,
    /// The interposition library (`libfib_interpose.so`).
    pub interpose: PathBuf,
    pub mpicc: String,
    pub mpiexec: String,
    /// Arguments passed to the program.
    pub args: Vec<String>,
    /// Prove each barrier verdict by re-exploring without the group.
    pub confirm: bool,
}

/// The process count used when neither `-n` nor a `fib:` directive says.
pub const DEFAULT_NPROCS: usize = 2;

/// Checks every program under `path` (a source file or a directory). One
/// program's failure to build or run is reported for that program; the
/// others are still checked.
pub fn check(path: &Path, opts: &Options) -> Result<Report, DriverError> {
    let tree = program::discover(path, &opts.mpicc)?;
    let programs = tree.programs()?;
    if programs.is_empty() {
        return Err(DriverError::Input(format!(
            "{}: no program here (no source defines main)",
            path.display()
        )));
    }
    let mut report = Report::default();
    for p in &programs {
        report.programs.push(verify(&tree, p, opts)?);
    }
    Ok(report)
}

fn static_facts(tree: &Tree, program: &Program) -> StaticFacts {
    let in_program =
        |f: &Path| program.sources.iter().any(|s| s == f) || tree.headers.iter().any(|h| h == f);
    let sites = &program.analysis.sites.sites;
    let fact = |id: u32| -> Option<SiteFact> {
        let s = sites.get(id as usize)?;
        if !in_program(&s.file) {
            return None;
        }
        let (all_inputs, reasons) = match program.dependence(id) {
            Some(Dependence::DataDependent { reasons }) => (false, reasons.clone()),
            Some(Dependence::InputIndependent) => (true, Vec::new()),
            None => (false, vec!["not analysed".to_string()]),
        };
        Some(SiteFact {
            file: tree.show(&s.file),
            line: s.line,
            column: s.column,
            callee: s.callee.clone(),
            all_inputs,
            reasons,
        })
    };
    StaticFacts {
        sites: sites.iter().filter(|s| in_program(&s.file)).count(),
        barriers: program
            .analysis
            .facts
            .barriers
            .iter()
            .filter_map(|&b| fact(b))
            .collect(),
        wildcards: program
            .analysis
            .facts
            .wildcards
            .iter()
            .filter_map(|w| fact(w.site))
            .collect(),
    }
}

/// Builds and verifies one program of the tree.
fn verify(tree: &Tree, program: &Program, opts: &Options) -> Result<ProgramReport, DriverError> {
    let started = Instant::now();
    let nprocs = opts
        .nprocs
        .or(program.directive_nprocs)
        .unwrap_or(DEFAULT_NPROCS);
    let mut report = ProgramReport {
        program: tree.show(&program.main),
        nprocs,
        buffering: if opts.zero_buffer {
            Buffering::Zero
        } else {
            Buffering::Buffered
        },
        outcome: Outcome::Ok,
        interleavings: 0,
        findings: Vec::new(),
        calls: 0,
        build: None,
        static_facts: Some(static_facts(tree, program)),
        barriers: Vec::new(),
        timing: Timing::default(),
        elapsed_ms: 0,
    };
    if nprocs == 0 {
        return Err(DriverError::Input(format!(
            "{}: the process count must be at least 1",
            report.program
        )));
    }
    let built = match tree.build(program, &opts.mpicc)? {
        Ok(b) => b,
        Err(fail) => {
            report.outcome = Outcome::BuildFailed;
            let mut f = Finding::new(
                "FIB007",
                Severity::Error,
                format!("{} does not compile", report.program),
            );
            f.file = fail.file;
            f.line = fail.line;
            f.notes = fail.output.lines().take(40).map(str::to_string).collect();
            report.findings.push(f);
            report.elapsed_ms = started.elapsed().as_millis() as u64;
            return Ok(report);
        }
    };
    report.timing.build_ms = started.elapsed().as_millis() as u64;
    report.build = Some(if built.cached {
        BuildKind::Cached
    } else {
        BuildKind::Built
    });
    let mut spec = RunSpec {
        mpiexec: &opts.mpiexec,
        nprocs,
        exe: &built.exe,
        args: &opts.args,
        interpose: &opts.interpose,
        zero_buffer: opts.zero_buffer,
        timeout: opts.timeout,
        elide: None,
    };
    let keep = !program.analysis.facts.barriers.is_empty();
    let phase = Instant::now();
    let base = explore(tree, program, &spec, opts, &mut report, keep)?;
    report.timing.explore_ms = phase.elapsed().as_millis() as u64;
    // Verdicts speak of every interleaving: a replay of one cannot give them.
    let classify = keep && opts.replay.is_none();
    if classify && !matches!(report.outcome, Outcome::Unsupported | Outcome::BuildFailed) {
        let phase = Instant::now();
        let mut v = barriers::classify(tree, program, &base.traces, report.interleavings);
        report.timing.fib_ms = phase.elapsed().as_millis() as u64;
        report.timing.fib_us = phase.elapsed().as_micros() as u64;
        let phase = Instant::now();
        // The fast method assumes a program without deadlocks or crashes:
        // in one that has them, a barrier can matter through the failure
        // itself, which only removal sees.
        let failing = report.outcome != Outcome::Ok;
        let mut extra = Vec::new();
        if opts.confirm {
            for k in 0..v.reports.len() {
                if v.reports[k].verdict == Verdict::NotCovered {
                    continue;
                }
                spec.elide = Some(barriers::elide_spec(program, &v.sites[k]));
                let mut scratch = report.clone();
                scratch.findings.clear();
                scratch.interleavings = 0;
                let without = explore(tree, program, &spec, opts, &mut scratch, false)?;
                report.calls += scratch.calls;
                let removal = if base.signature.differs(&without.signature) {
                    Verdict::Relevant
                } else {
                    Verdict::Irrelevant
                };
                let b = &mut v.reports[k];
                if b.verdict != removal && !failing {
                    let lines: Vec<String> = b
                        .group
                        .iter()
                        .map(|s| format!("{}:{}", s.file, s.line))
                        .collect();
                    extra.push(Finding {
                        code: "FIB017",
                        severity: Severity::Error,
                        message: format!(
                            "internal error: in {}, the barrier group at {} is {} by the fast method but {} by removal",
                            report.program,
                            lines.join(", "),
                            verdict_name(b.verdict),
                            verdict_name(removal)
                        ),
                        file: b.group.first().map(|s| s.file.clone()),
                        line: b.group.first().map(|s| s.line),
                        column: b.group.first().map(|s| s.column),
                        span: None,
                        rank: None,
                        replay: None,
                        ranks: Vec::new(),
                        notes: vec![format!(
                            "without the group: {} wildcard pairs, errors {:?}; with it: {} pairs, errors {:?}",
                            without.signature.pairs.len(),
                            without.signature.errors,
                            base.signature.pairs.len(),
                            base.signature.errors
                        )],
                        labels: Vec::new(),
                        help: None,
                    });
                }
                if b.verdict != removal {
                    // Report what removal showed: it is the definition.
                    b.verdict = removal;
                    b.witness = match removal {
                        Verdict::Irrelevant => Some(fib_report::Witness::Irrelevant {
                            interleavings: report.interleavings,
                            ranks: v.coverage[k].0,
                            instances: v.coverage[k].1,
                        }),
                        _ => None,
                    };
                }
                b.confirmed = true;
            }
        }
        let cut = report.findings.iter().any(|f| f.code == "FIB011");
        let note = match (failing, opts.confirm) {
            (true, true) => Some("the program fails in some interleaving; these verdicts come from removal (--confirm), since the fast method assumes a program without deadlocks or crashes"),
            (true, false) => Some("the program fails in some interleaving and the fast method assumes one that does not: check again with --confirm to decide by removal"),
            _ => None,
        };
        report
            .findings
            .extend(barriers::group_findings(tree, program, &v, note, cut));
        report.findings.extend(extra);
        report.barriers = v.reports;
        if opts.confirm {
            report.timing.confirm_ms = phase.elapsed().as_millis() as u64;
        }
    }
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// What an exploration produced.
struct Explored {
    traces: Vec<barriers::RunTrace>,
    signature: barriers::Signature,
}

/// Explores the program's interleavings (or replays one), adding findings
/// to `report`. `keep` keeps every run's operations for the Fib pass.
fn explore(
    tree: &Tree,
    program: &Program,
    spec: &RunSpec,
    opts: &Options,
    report: &mut ProgramReport,
    keep: bool,
) -> Result<Explored, DriverError> {
    let mut out = Explored {
        traces: Vec::new(),
        signature: barriers::Signature::default(),
    };
    let mut map = barriers::SiteMap::new(program);
    let mut explorer = Explorer::new();
    let mut seen: Vec<(String, Vec<RankState>)> = Vec::new();
    let mut runs = 0usize;
    loop {
        let plan = match &opts.replay {
            Some(t) if runs == 0 => t.plan(),
            Some(_) => break,
            None => match explorer.next_plan() {
                Some(p) => p,
                None => break,
            },
        };
        if runs >= opts.max_interleavings {
            report.findings.push(Finding::new(
                "FIB011",
                Severity::Warning,
                format!(
                    "stopped after {} interleavings (--max-interleavings); the rest were not explored",
                    opts.max_interleavings
                ),
            ));
            break;
        }
        let planned = plan.len();
        // Only the first run of the program's own exploration is rerun
        // without buffering: a program whose calls cannot depend on timing
        // has no choice, so it has that one run.
        let log_calls = runs == 0 && spec.elide.is_none();
        let rec = server::run(spec, plan, log_calls)?;
        runs += 1;
        report.interleavings += 1;
        report.calls += rec.calls;
        explorer.finished(&rec.choices);
        let token = Token::of(&rec.choices);
        let replay_short = opts.replay.is_some() && rec.choices.len() < planned;
        let at = Sites {
            tree,
            program,
            rec: &rec,
        };
        let (stop, code) = judge(&at, &token, report, &mut seen, replay_short);
        if !replay_short {
            leaks::report(&at, &rec.ops, &rec.leaks, &token.to_string(), report);
        }
        if let Some(calls) = &rec.calls_log {
            without_buffering(&at, calls, &token, report);
        }
        let trace = barriers::RunTrace {
            token: token.to_string(),
            ops: rec.ops,
            fired: rec.fired,
            files: rec.files,
        };
        if opts.confirm || spec.elide.is_some() {
            out.signature.add(&mut map, &trace, code);
        }
        if keep {
            out.traces.push(trace);
        }
        if stop {
            break;
        }
    }
    Ok(out)
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Relevant => "relevant",
        Verdict::Irrelevant => "irrelevant",
        Verdict::NotCovered => "not covered",
    }
}

/// Resolves the sites a run reported to places in the user's files.
pub(crate) struct Sites<'a> {
    tree: &'a Tree,
    program: &'a Program,
    rec: &'a RunRecord,
}

impl Sites<'_> {
    /// The site table's entry for a reported site, when it has one.
    pub(crate) fn call_site(&self, site: Site, callee: &str) -> Option<&instrument::CallSite> {
        if site.file == 0 {
            return None;
        }
        let (file, table) = if site.file == fib_wire::SITE_TABLE {
            (None, Some(site.line))
        } else {
            (self.rec.files.get(&site.file).map(String::as_str), None)
        };
        self.program.resolve(file, site.line, table, callee)
    }

    /// The byte span of the site-table call at a place already resolved
    /// (as shown to the user).
    pub(crate) fn span_at(
        &self,
        file: Option<&str>,
        line: Option<u32>,
        column: Option<u32>,
    ) -> Option<(usize, usize)> {
        let (file, line, column) = (file?, line?, column?);
        self.program
            .analysis
            .sites
            .sites
            .iter()
            .find(|s| s.line == line && s.column == column && self.tree.show(&s.file) == file)
            .map(|s| s.span)
    }

    /// File, line and column of a reported site; `callee` helps tell apart
    /// calls produced by macros on one line.
    pub(crate) fn place(
        &self,
        site: Site,
        callee: &str,
    ) -> (Option<String>, Option<u32>, Option<u32>) {
        if let Some(s) = self.call_site(site, callee) {
            return (Some(self.tree.show(&s.file)), Some(s.line), Some(s.column));
        }
        match self.rec.files.get(&site.file) {
            Some(f) if site.file != 0 && site.file != fib_wire::SITE_TABLE => {
                (Some(self.tree.show(Path::new(f))), Some(site.line), None)
            }
            _ => (None, None, None),
        }
    }
}

fn rank_states(at: &Sites, views: &[RankView]) -> Vec<RankState> {
    views
        .iter()
        .map(|v| {
            let (file, line, column) = at.place(v.site, v.call.unwrap_or(""));
            let call = match (v.call, v.finalized) {
                (Some(c), _) => c.to_string(),
                (None, true) => "finished".to_string(),
                (None, false) => "running".to_string(),
            };
            RankState {
                rank: v.rank,
                call,
                file,
                line,
                column,
            }
        })
        .collect()
}

fn worse(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: Outcome| match o {
        Outcome::Ok => 0,
        Outcome::Timeout => 1,
        Outcome::Deadlock => 2,
        Outcome::Crash => 3,
        Outcome::Unsupported => 4,
        Outcome::BuildFailed => 5,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The lines of the program's stderr worth showing (the launcher's banners
/// left out).
fn program_stderr(text: &str) -> Vec<String> {
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

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV (segmentation fault)",
        libc::SIGBUS => "SIGBUS (bus error)",
        libc::SIGFPE => "SIGFPE (arithmetic error)",
        libc::SIGILL => "SIGILL (illegal instruction)",
        libc::SIGABRT => "SIGABRT (abort, e.g. a failed assert)",
        _ => "a fatal signal",
    }
}

fn describe_point(p: &Option<ChoicePoint>) -> String {
    match p {
        Some(p) => format!(
            "rank {} call #{} choosing among {} alternatives",
            p.at.rank,
            p.at.index,
            p.alternatives.len()
        ),
        None => "no choice point".into(),
    }
}

/// Turns one run into findings; returns whether exploration must stop.
fn judge(
    at: &Sites,
    token: &Token,
    report: &mut ProgramReport,
    seen: &mut Vec<(String, Vec<RankState>)>,
    replay_short: bool,
) -> (bool, Option<&'static str>) {
    let rec = at.rec;
    let mut f = Finding::new("", Severity::Error, String::new());
    f.replay = Some(token.to_string());
    let (outcome, stop) = match &rec.ending {
        Ending::Engine(RunEnd::Completed) if replay_short => {
            f.code = "FIB008";
            f.message = "the replay token names more choices than this run had; the program does not behave as when the token was made".into();
            (Outcome::Unsupported, true)
        }
        Ending::Engine(RunEnd::Completed) => return (false, None),
        Ending::Engine(RunEnd::Deadlock { ranks }) | Ending::Engine(RunEnd::Livelock { ranks }) => {
            let live = matches!(rec.ending, Ending::Engine(RunEnd::Livelock { .. }));
            f.code = if live { "FIB010" } else { "FIB001" };
            f.ranks = rank_states(at, ranks);
            let blocked = at_blocked_ranks(&mut f);
            f.message = if live {
                "livelock: every rank waits or polls, and no poll can ever succeed".into()
            } else {
                format!("deadlock: {blocked}")
            };
            (Outcome::Deadlock, false)
        }
        Ending::Engine(RunEnd::CollectiveMismatch { comm, calls }) => {
            f.code = "FIB009";
            let names: Vec<String> = calls
                .iter()
                .map(|(id, name, _)| format!("rank {} calls {}", id.rank, name))
                .collect();
            f.message = format!(
                "collective mismatch on {}: {}",
                comm_name(*comm),
                names.join(", ")
            );
            f.ranks = calls
                .iter()
                .map(|(id, name, site)| {
                    let (file, line, column) = at.place(*site, name);
                    RankState {
                        rank: id.rank,
                        call: name.to_string(),
                        file,
                        line,
                        column,
                    }
                })
                .collect();
            if let Some(s) = f.ranks.first() {
                f.file = s.file.clone();
                f.line = s.line;
                f.column = s.column;
                f.rank = Some(s.rank);
            }
            (Outcome::Deadlock, false)
        }
        Ending::Engine(RunEnd::Divergence {
            index,
            expected,
            found,
        }) => {
            f.code = "FIB008";
            if let Some(p) = found {
                let (file, line, column) = at.place(p.site, "");
                f.file = file;
                f.line = line;
                f.column = column;
                f.rank = Some(p.at.rank);
            }
            f.message = format!(
                "replay diverged at choice {}: expected {}, found {}; the program's behaviour depends on something other than MPI (time, random numbers, uninitialised memory)",
                index + 1,
                describe_point(expected),
                describe_point(found)
            );
            (Outcome::Unsupported, true)
        }
        Ending::Engine(RunEnd::Invalid { op, site, message }) => {
            f.code = "FIB012";
            let (file, line, column) = at.place(*site, "");
            f.file = file;
            f.line = line;
            f.column = column;
            f.rank = Some(op.rank);
            f.message = format!("invalid MPI call: {message}");
            (Outcome::Crash, false)
        }
        Ending::Crash { rank, signal, site } => {
            f.code = "FIB002";
            place(&mut f, at, *site, "", *rank);
            f.message = format!(
                "rank {rank} crashed with {}{}",
                signal_name(*signal),
                if site.file == 0 {
                    String::new()
                } else {
                    " after its last MPI call".into()
                }
            );
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::Abort { rank, code, site } => {
            f.code = "FIB003";
            place(&mut f, at, *site, "MPI_Abort", *rank);
            f.message = format!("rank {rank} called MPI_Abort with error code {code}");
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::MpiError {
            rank, text, site, ..
        } => {
            f.code = "FIB021";
            let callee = at.call_site(*site, "").map(|s| s.callee.clone());
            place(&mut f, at, *site, "", *rank);
            let text = text.trim();
            f.message = match callee {
                Some(c) => format!("rank {rank}: {c} failed in the MPI library: {text}"),
                None => format!("rank {rank}: an MPI call failed in the MPI library: {text}"),
            };
            (Outcome::Crash, false)
        }
        Ending::NoFinalize { rank, site, status } => {
            f.code = "FIB004";
            place(&mut f, at, *site, "", *rank);
            f.message = format!("rank {rank} exited without calling MPI_Finalize");
            if let Some(s) = status {
                f.message.push_str(&format!(", with status {s}"));
            }
            if site.file != 0 {
                f.message.push_str(" (its last MPI call is shown)");
            }
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::BadExit { rank, status, site } => {
            f.code = "FIB022";
            place(&mut f, at, *site, "MPI_Finalize", *rank);
            f.message = format!("rank {rank} exited with status {status} after MPI_Finalize");
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::Unsupported { rank, name, site } => {
            f.code = "FIB006";
            place(&mut f, at, *site, name, *rank);
            f.message = format!("{name} is not supported by fib yet");
            (Outcome::Unsupported, true)
        }
        Ending::Timeout => {
            f.code = "FIB005";
            f.ranks = rank_states(at, &rec.ranks);
            f.message = "the program ran past the time limit (--timeout)".into();
            if let Some(s) = f.ranks.iter().find(|s| s.call == "running") {
                f.rank = Some(s.rank);
                f.file = s.file.clone();
                f.line = s.line;
                f.column = s.column;
                f.message
                    .push_str(&format!("; rank {} was computing, not in MPI", s.rank));
            }
            (Outcome::Timeout, false)
        }
        Ending::LaunchFailed { status } => {
            f.code = "FIB004";
            f.message = if rec.calls == 0 && status.ends_with("status: 0") {
                "the program ended with status 0 before every rank called MPI_Init; fib checks MPI programs (does every rank call MPI_Init?)".into()
            } else {
                format!("the program ended before every rank called MPI_Init (mpiexec {status})")
            };
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::Protocol { rank, message } => {
            f.code = "FIB013";
            f.rank = *rank;
            f.message = format!("fib lost track of the run: {message}");
            (Outcome::Unsupported, true)
        }
    };
    if f.span.is_none() {
        f.span = at.span_at(f.file.as_deref(), f.line, f.column);
    }
    if matches!(f.code, "FIB001" | "FIB009" | "FIB010") {
        label_other_ranks(at, &mut f);
    }
    report.outcome = worse(report.outcome, outcome);
    let key = (format!("{}:{}", f.code, f.message), f.ranks.clone());
    let code = f.code;
    if !seen.contains(&key) {
        seen.push(key);
        report.findings.push(f);
    }
    (stop, Some(code))
}

/// The other ranks' calls of a deadlock or mismatch, on the source too: one
/// label per place other than the primary one, naming its ranks.
fn label_other_ranks(at: &Sites, f: &mut Finding) {
    // (file, line, column), the ranks there, their call.
    type Place = ((String, u32, u32), Vec<usize>, String);
    let mut places: Vec<Place> = Vec::new();
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
            .find(|(k, _, call)| *k == key && *call == s.call)
        {
            Some((_, ranks, _)) => ranks.push(s.rank),
            None => places.push((key, vec![s.rank], s.call.clone())),
        }
    }
    for ((file, line, column), ranks, call) in places {
        let who: Vec<String> = ranks.iter().map(usize::to_string).collect();
        f.labels.push(fib_report::Label {
            span: at.span_at(Some(&file), Some(line), Some(column)),
            file,
            line,
            column,
            message: format!(
                "{} {}: {call}",
                if ranks.len() == 1 { "rank" } else { "ranks" },
                who.join(", ")
            ),
        });
    }
}

/// Reruns the calls of a completed buffered run in the engine without
/// buffering, and reports the deadlock it shows: the program completed only
/// because MPI buffered a standard send, which large messages or another MPI
/// library do not.
fn without_buffering(
    at: &Sites,
    calls: &[Vec<(Site, fib_wire::Op)>],
    token: &Token,
    report: &mut ProgramReport,
) {
    let cfg = poe::Config {
        nprocs: calls.len(),
        zero_buffer: true,
    };
    let RunEnd::Deadlock { ranks } = poe::sim::rerun_calls(calls, cfg).end else {
        return;
    };
    let mut f = Finding::new("FIB023", Severity::Warning, String::new());
    f.replay = Some(token.to_string());
    f.ranks = rank_states(at, &ranks);
    f.help = Some(
        "check with --zero-buffer to see the deadlock; exchange with MPI_Sendrecv or nonblocking calls, or order the sends and receives so that one side receives first".into(),
    );
    let blocked = at_blocked_ranks(&mut f);
    f.message = format!(
        "deadlock without buffering: {blocked}; the program completes only because MPI buffers standard sends"
    );
    f.span = at.span_at(f.file.as_deref(), f.line, f.column);
    label_other_ranks(at, &mut f);
    report.findings.push(f);
}

/// Puts a deadlock finding at its first blocked rank (or its first rank)
/// and returns the blocked ranks as "rank 0 in MPI_Recv, rank 1 in ...".
fn at_blocked_ranks(f: &mut Finding) -> String {
    let blocked: Vec<&RankState> = f
        .ranks
        .iter()
        .filter(|s| s.call != "finished" && s.call != "MPI_Finalize")
        .collect();
    if let Some(s) = blocked.first().copied().or(f.ranks.first()) {
        f.file = s.file.clone();
        f.line = s.line;
        f.column = s.column;
        f.rank = Some(s.rank);
    }
    let what: Vec<String> = blocked
        .iter()
        .map(|s| format!("rank {} in {}", s.rank, s.call))
        .collect();
    what.join(", ")
}

/// Puts a finding at a rank's call: file, line and column of `site`.
fn place(f: &mut Finding, at: &Sites, site: Site, callee: &str, rank: usize) {
    (f.file, f.line, f.column) = at.place(site, callee);
    f.rank = Some(rank);
}

fn comm_name(comm: u32) -> String {
    match comm {
        fib_wire::COMM_WORLD => "MPI_COMM_WORLD".into(),
        fib_wire::COMM_SELF => "MPI_COMM_SELF".into(),
        c => format!("communicator #{c}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_the_driver_reports_is_documented() {
        let src = [include_str!("verify.rs"), include_str!("leaks.rs")].concat();
        let mut n = 0;
        for (i, _) in src.match_indices("\"FIB") {
            let code = &src[i + 1..i + 7];
            if !code[3..].bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            assert!(
                fib_report::codes::lookup(code).is_some(),
                "{code} has no entry in report/src/codes"
            );
            n += 1;
        }
        assert!(n >= 16, "found only {n} codes");
    }

    #[test]
    fn launcher_banners_are_left_out_of_program_stderr() {
        let text = "prog: x.c:8: main: Assertion `r' failed.\n\n===================\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 12 RUNNING AT vm\n";
        assert_eq!(
            program_stderr(text),
            vec!["prog: x.c:8: main: Assertion `r' failed.".to_string()]
        );
    }
}
