//! Checks programs: for each one, looks for calls to MPI functions fib does
//! not model (such a program is reported and not run, unless
//! `--run-unsupported`), builds it, explores its interleavings, gives its
//! barrier groups their verdicts (proving them by removal with
//! `--confirm`), and assembles its report once everything is known, or once
//! the user interrupts it (from what is known then). Its progress goes to a
//! [`Progress`] the caller gives.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fib_analysis::{barriers, confirm, Diverged, Explored, GroupVerdict, Keep, Resolver};
use fib_report::{Buffering, BuildKind, Finding, Outcome, ProgramReport, Report, Timing, Verdict};
use instrument::CallSite;
use poe::explore::{DepthFirst, Replay, Strategy};
use poe::Token;

use crate::discover::{self, Program, Tree};
use crate::explore::{self, Exchangeable, RunSpec};
use crate::mpi::Toolchain;
use crate::progress::{Phase, Progress, Silent, Tracker};
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
    /// How many interleavings may run at once (`--jobs`); the results are
    /// those of one at a time.
    pub jobs: usize,
    /// Explore every order of exchangeable wildcard receives and of free
    /// rows of `MPI_Waitany` instead of letting one run stand for them
    /// (`--exhaustive`).
    pub exhaustive: bool,
    /// The MPI implementation's compiler, launcher and interposition
    /// library.
    pub toolchain: Toolchain,
    /// Arguments passed to the program.
    pub args: Vec<String>,
    /// The ranks' working directory (`--cwd`); by default the directory of
    /// the program's main source.
    pub cwd: Option<PathBuf>,
    /// Prove each barrier verdict by re-exploring without the group.
    pub confirm: bool,
    /// Run a program that calls MPI functions fib does not model anyway
    /// (`--run-unsupported`); by default such a program is not run.
    pub run_unsupported: bool,
    /// Link flags from `fib.toml` (the top level's, then the program's).
    pub link: Vec<String>,
}

/// The process count used when neither `-n` nor a `fib:` directive says.
pub const DEFAULT_NPROCS: usize = 2;

/// Checks every program under `path` (a source file or a directory). One
/// program's failure to build or run is reported for that program; the
/// others are still checked.
pub fn check(path: &Path, opts: &Options) -> Result<Report, DriverError> {
    let tree = discover::discover(path, &opts.toolchain.mpicc)?;
    let programs = tree.programs()?;
    if programs.is_empty() {
        return Err(DriverError::Input(format!(
            "{}: no program here (no source defines main)",
            path.display()
        )));
    }
    let mut report = Report::default();
    for p in &programs {
        report.programs.push(verify(&tree, p, opts, &Silent)?);
    }
    Ok(report)
}

/// Why `--replay TOKEN` names no interleaving of the program: the user's
/// mistake (or a program that changed), not a finding about the program.
fn not_a_token(token: &Token, d: Diverged, program: &str, nprocs: usize) -> String {
    let why = match d {
        Diverged::At {
            choice,
            alternatives: Some(n),
        } => format!(
            "at its choice {} the program offers alternatives 0 to {}, and the token names {}",
            choice + 1,
            n - 1,
            token.0.get(choice).copied().unwrap_or_default()
        ),
        Diverged::At { choice, .. } => format!(
            "the token names a choice {} that the program never makes",
            choice + 1
        ),
        Diverged::Short { planned, took } => {
            format!("the token names {planned} choices, and the program makes only {took}")
        }
    };
    format!(
        "--replay {token}: not an interleaving of {program} with {nprocs} processes: {why} (use a token fib printed for this program, its process count and its arguments)"
    )
}

/// The report of a program before anything is known of its runs.
pub(crate) fn empty_report(program: String, nprocs: usize, zero_buffer: bool) -> ProgramReport {
    ProgramReport {
        program,
        nprocs,
        buffering: if zero_buffer {
            Buffering::Zero
        } else {
            Buffering::Buffered
        },
        outcome: Outcome::Ok,
        interleavings: 0,
        findings: Vec::new(),
        calls: 0,
        build: None,
        static_facts: None,
        barriers: Vec::new(),
        timing: Timing::default(),
        elapsed_ms: 0,
        interrupted: false,
        sends_copied: false,
        workflow: Default::default(),
    }
}

/// The barrier verdicts of one program, the findings that show them, and
/// what they cost.
struct Barriers {
    groups: Vec<GroupVerdict>,
    findings: Vec<Finding>,
    /// MPI calls of the re-explorations without each group.
    calls: u64,
    /// The user interrupted a re-exploration; the groups not yet settled
    /// keep the fast method's verdicts.
    interrupted: bool,
    fib: Duration,
    confirm: Option<Duration>,
}

/// Builds and verifies one program of the tree, telling `progress` how it
/// goes. [`DriverError::Interrupted`] when the user interrupted fib before
/// a single interleaving ran (nothing to report); an interrupt after that
/// gives the report of the runs made, marked `interrupted`.
pub(crate) fn verify(
    tree: &Tree,
    program: &Program,
    opts: &Options,
    progress: &dyn Progress,
) -> Result<ProgramReport, DriverError> {
    let started = Instant::now();
    let shown = tree.show(&program.main);
    let nprocs = opts
        .nprocs
        .or(program.directive_nprocs)
        .unwrap_or(DEFAULT_NPROCS);
    if nprocs == 0 {
        return Err(DriverError::Input(format!(
            "{shown}: the process count must be at least 1"
        )));
    }
    let sites = Resolver::new(&program.analysis, &tree.shown_root);
    let in_program =
        |f: &Path| program.sources.iter().any(|s| s == f) || tree.headers.iter().any(|h| h == f);
    let mut tracker = Tracker::new(progress, &shown, nprocs);
    let mut report = empty_report(shown, nprocs, opts.zero_buffer);
    report.static_facts = Some(fib_analysis::static_facts(&sites, &in_program));
    // Every call to a function fib does not model, found before running:
    // such a program is neither built nor run unless the user asks.
    let unmodelled = fib_analysis::unmodelled_calls(&sites);
    let built = if !unmodelled.is_empty() && !opts.run_unsupported {
        report.outcome = Outcome::Unsupported;
        report.findings = fib_analysis::unmodelled_findings(&sites, &unmodelled, None);
        None
    } else {
        build(tree, program, opts, &mut report)?
    };
    let Some(exe) = built else {
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        return Ok(report);
    };
    report.timing.build_ms = started.elapsed().as_millis() as u64;
    let cwd = working_dir(tree, program, opts)?;
    // The ranks run elsewhere: the program by its full path.
    let exe = std::path::absolute(&exe).unwrap_or(exe);
    let has_barriers = !program.analysis.facts.barriers.is_empty();
    // Wildcard receives whose data steers nothing: all of them when nothing
    // the program receives steers it.
    let facts = &program.analysis.facts;
    let receives: Vec<u32> = if facts.steering.is_empty() {
        let mut any: Vec<u32> = facts
            .wildcards
            .iter()
            .filter(|w| w.any_source)
            .map(|w| w.site)
            .collect();
        any.sort_unstable();
        any
    } else {
        facts.free_receives.clone()
    };
    let built = Built {
        exe: &exe,
        cwd: &cwd,
        sites: &sites,
        has_barriers,
        unmodelled: &unmodelled,
        exchange: (!opts.exhaustive).then_some(Exchangeable {
            receives: &receives,
            waits: &facts.free_waits,
            probes: &facts.free_probes,
        }),
    };
    run_built(&built, opts, &mut tracker, &mut report)?;
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// A program ready to run: its executable and the directory it runs in,
/// how its sites resolve, whether it may have barriers (the Fib pass then
/// needs the runs' traces), and the calls to functions fib does not model
/// found before running.
pub(crate) struct Built<'a> {
    pub exe: &'a Path,
    pub cwd: &'a Path,
    pub sites: &'a Resolver<'a>,
    pub has_barriers: bool,
    pub unmodelled: &'a [&'a CallSite],
    /// When a run may stand for other orders of its calls (the user did
    /// not ask for `--exhaustive`, and fib has the program's static facts):
    /// the sites that allow it.
    pub exchange: Option<Exchangeable<'a>>,
}

/// Explores a built program, gives its barrier groups their verdicts and
/// fills `report` with what they showed.
pub(crate) fn run_built(
    built: &Built,
    opts: &Options,
    tracker: &mut Tracker,
    report: &mut ProgramReport,
) -> Result<(), DriverError> {
    let (sites, has_barriers) = (built.sites, built.has_barriers);
    // Standard sends go from the program's buffer until a run needs them
    // copied; `FIB_COPY_SENDS=1` copies from the first run (to compare).
    let copies = AtomicBool::new(std::env::var(fib_wire::env::COPY_SENDS).is_ok_and(|v| v == "1"));
    let spec = RunSpec {
        toolchain: &opts.toolchain,
        nprocs: report.nprocs,
        exe: built.exe,
        args: &opts.args,
        cwd: built.cwd,
        zero_buffer: opts.zero_buffer,
        exchange: built.exchange,
        timeout: opts.timeout,
        elide: None,
        copies: &copies,
    };
    let phase = Instant::now();
    let base = explore_program(&spec, sites, opts, has_barriers, tracker, &report.program)?;
    report.timing.explore_ms = phase.elapsed().as_millis() as u64;
    // Verdicts speak of every interleaving: a replay of one cannot give them.
    let classify = has_barriers
        && opts.replay.is_none()
        && !matches!(base.outcome, Outcome::Unsupported | Outcome::BuildFailed);
    let verdicts = match classify {
        true => Some(judge_barriers(
            &spec,
            sites,
            &base,
            opts,
            &report.program,
            tracker,
        )?),
        false => None,
    };
    fill(report, base, verdicts, sites, built.unmodelled);
    report.sends_copied = !opts.zero_buffer && copies.load(Ordering::Relaxed);
    Ok(())
}

/// Builds the program, noting in `report` how; `None` when it did not
/// build (the report then says why).
fn build(
    tree: &Tree,
    program: &Program,
    opts: &Options,
    report: &mut ProgramReport,
) -> Result<Option<PathBuf>, DriverError> {
    match tree.build(program, &opts.toolchain, &opts.link)? {
        Ok(b) => {
            report.build = Some(if b.cached {
                BuildKind::Cached
            } else {
                BuildKind::Built
            });
            Ok(Some(b.exe))
        }
        Err(fail) => {
            report.outcome = Outcome::BuildFailed;
            report.findings.push(fib_analysis::build_failed(
                &report.program,
                fail.stage,
                fail.file,
                fail.line,
                &fail.output,
            ));
            Ok(None)
        }
    }
}

/// Explores the program's interleavings (or replays the one `--replay`
/// names).
fn explore_program(
    spec: &RunSpec,
    sites: &Resolver,
    opts: &Options,
    has_barriers: bool,
    tracker: &mut Tracker,
    program: &str,
) -> Result<Explored, DriverError> {
    tracker.phase(Phase::Exploring);
    let mut strategy: Box<dyn Strategy> = match &opts.replay {
        Some(t) => Box::new(Replay::new(t.clone())),
        None => Box::new(DepthFirst::new()),
    };
    let keep = Keep {
        traces: has_barriers,
        signature: opts.confirm,
    };
    let walk = explore::Walk {
        limit: opts.max_interleavings,
        jobs: opts.jobs,
        log_first: true,
    };
    let base = explore::explore(spec, &mut *strategy, walk, sites, keep, tracker)?;
    if base.interrupted && base.interleavings == 0 {
        return Err(DriverError::Interrupted);
    }
    if let (Some(token), Some(d)) = (&opts.replay, base.diverged) {
        return Err(DriverError::Input(not_a_token(
            token,
            d,
            program,
            spec.nprocs,
        )));
    }
    Ok(base)
}

/// The report of a program once explored: what the exploration and the
/// barrier verdicts found, the calls fib does not model first.
fn fill(
    report: &mut ProgramReport,
    base: Explored,
    verdicts: Option<Barriers>,
    sites: &Resolver,
    unmodelled: &[&CallSite],
) {
    report.interrupted = base.interrupted || verdicts.as_ref().is_some_and(|v| v.interrupted);
    report.outcome = base.outcome;
    report.interleavings = base.interleavings;
    report.calls = base.calls;
    report.findings = base.findings;
    if !unmodelled.is_empty() {
        let listed = fib_analysis::unmodelled_findings(sites, unmodelled, Some(&report.findings));
        report.findings.splice(0..0, listed);
    }
    if let Some(v) = verdicts {
        report.calls += v.calls;
        report.timing.fib_ms = v.fib.as_millis() as u64;
        report.timing.fib_us = v.fib.as_micros() as u64;
        report.timing.confirm_ms = v.confirm.map_or(0, |d| d.as_millis() as u64);
        report.findings.extend(v.findings);
        report.barriers = v.groups.into_iter().map(|g| g.report).collect();
    }
}

/// The Fib pass over the exploration's runs of `program`, and with
/// `--confirm` the proof of every verdict by removal. After an interrupt,
/// only what the runs made prove: no group is called irrelevant.
fn judge_barriers(
    spec: &RunSpec,
    sites: &Resolver,
    base: &Explored,
    opts: &Options,
    program: &str,
    tracker: &mut Tracker,
) -> Result<Barriers, DriverError> {
    let phase = Instant::now();
    let mut groups = barriers::classify(sites, &base.traces, base.interleavings);
    let fib = phase.elapsed();
    if base.interrupted {
        barriers::undecided(&mut groups);
        let cx = barriers::Context {
            failing: base.outcome != Outcome::Ok,
            interrupted: Some(base.interleavings),
            ..Default::default()
        };
        return Ok(Barriers {
            findings: barriers::findings(&groups, cx),
            groups,
            calls: 0,
            interrupted: true,
            fib,
            confirm: None,
        });
    }
    let phase = Instant::now();
    // The fast method assumes a program without deadlocks or crashes: in one
    // that has them, a barrier can matter through the failure itself, which
    // only removal sees.
    let failing = base.outcome != Outcome::Ok;
    let removal = match opts.confirm {
        true => confirm_groups(spec, sites, base, opts, program, tracker, &mut groups)?,
        false => Removal::default(),
    };
    let interrupted = removal.interrupted;
    if interrupted && failing {
        // In a failing program the fast method's verdicts stand only once
        // removal has settled them; an unsettled "irrelevant" is no verdict.
        for g in groups
            .iter_mut()
            .filter(|g| !g.report.confirmed && g.report.verdict == Verdict::Irrelevant)
        {
            g.report.verdict = Verdict::Undecided;
            g.report.witness = None;
        }
    }
    let cx = barriers::Context {
        failing,
        confirmed: opts.confirm,
        cut: base.cut,
        all_failed: base.all_failed(),
        interrupted: interrupted.then_some(base.interleavings),
    };
    let mut findings = barriers::findings(&groups, cx);
    findings.extend(removal.disagreements);
    Ok(Barriers {
        groups,
        findings,
        calls: removal.calls,
        interrupted,
        fib,
        confirm: opts.confirm.then(|| phase.elapsed()),
    })
}

/// What the proof by removal did.
#[derive(Default)]
struct Removal {
    /// MPI calls of the re-explorations.
    calls: u64,
    /// Groups on which the fast method and removal disagree (FIB017).
    disagreements: Vec<Finding>,
    /// The user interrupted it: the groups not reached keep the fast
    /// verdicts.
    interrupted: bool,
}

/// `--confirm`: re-explores the program without each covered group and
/// settles its verdict with what removal shows.
fn confirm_groups(
    spec: &RunSpec,
    sites: &Resolver,
    base: &Explored,
    opts: &Options,
    program: &str,
    tracker: &mut Tracker,
    groups: &mut [GroupVerdict],
) -> Result<Removal, DriverError> {
    let mut out = Removal::default();
    let failing = base.outcome != Outcome::Ok;
    let covered = groups
        .iter()
        .filter(|g| g.report.verdict != Verdict::NotCovered)
        .count();
    for (k, g) in groups
        .iter_mut()
        .filter(|g| g.report.verdict != Verdict::NotCovered)
        .enumerate()
    {
        tracker.phase(Phase::Confirming {
            group: k + 1,
            groups: covered,
        });
        let removed = RunSpec {
            elide: Some(barriers::elide_spec(sites, &g.sites)),
            ..*spec
        };
        let keep = Keep {
            traces: false,
            signature: true,
        };
        let mut strategy = DepthFirst::new();
        let walk = explore::Walk {
            limit: opts.max_interleavings,
            jobs: opts.jobs,
            log_first: false,
        };
        let without = explore::explore_until(
            &removed,
            &mut strategy,
            walk,
            sites,
            keep,
            tracker,
            Some(&base.signature),
        )?;
        out.calls += without.calls;
        if without.interrupted {
            // Removal saw only part of the program without the group: this
            // group and the ones after it keep the fast verdicts.
            out.interrupted = true;
            break;
        }
        out.disagreements.extend(confirm::settle(
            program,
            g,
            failing,
            base.interleavings,
            &base.signature,
            &without.signature,
        ));
    }
    Ok(out)
}

/// Where the ranks run: `--cwd`, else the directory of the program's main
/// source, where a program finds the files it opens by a relative name.
fn working_dir(tree: &Tree, program: &Program, opts: &Options) -> Result<PathBuf, DriverError> {
    let dir = match &opts.cwd {
        Some(d) => d.clone(),
        None => tree
            .root
            .join(&program.main)
            .parent()
            .map_or_else(|| tree.root.clone(), Path::to_path_buf),
    };
    std::fs::canonicalize(&dir)
        .map_err(|e| DriverError::Io(format!("the working directory {}", dir.display()), e))
}
