//! Checks one program: looks for calls to MPI functions fib does not model
//! (such a program is reported and not run, unless `--run-unsupported`),
//! builds it ([`mod@build`]), [`explore`]s its interleavings, gives its
//! barrier groups their [`verdicts`] (proving them by removal with
//! `--confirm`), and assembles its report once everything is known, or once
//! the user interrupts it (from what is known then). [`verify`] does it for
//! a program of the user's project; [`prebuilt`] for a program fib did not
//! build (`fib run`), whose calls [`symbols`] places and whose sources, when
//! its debug information names them, [`sources`] analyses. Its progress goes to
//! a [`Progress`] the caller gives.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fib_analysis::{Diverged, Explored, Keep, Resolver};
use fib_report::{Buffering, BuildKind, Outcome, ProgramReport, Timing};
use instrument::CallSite;
use poe::explore::{DepthFirst, Replay, Strategy};
use poe::Token;

use crate::project::{Program, Tree};
use crate::settings::{RunIn, DEFAULT_NPROCS};
use crate::toolchain::Toolchain;
use crate::DriverError;
use explore::{Exchangeable, RunSpec};
use progress::{Phase, Progress, Tracker};
use verdicts::{judge_barriers, Barriers};

mod build;
mod explore;
pub(crate) mod prebuilt;
pub(crate) mod progress;
mod scratch;
mod sources;
mod symbols;
mod verdicts;

/// How to verify programs.
#[derive(Clone, Debug)]
pub(crate) struct Options {
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
    /// The ranks' working directory (`--cwd`; for a `--build` check, the
    /// build's directory); by default the directory of the program's main
    /// source.
    pub cwd: Option<PathBuf>,
    /// Prove each barrier verdict by re-exploring without the group.
    pub confirm: bool,
    /// Run a program that calls MPI functions fib does not model anyway
    /// (`--run-unsupported`); by default such a program is not run.
    pub run_unsupported: bool,
    /// Link flags from `fib.toml` (the top level's, then the program's).
    pub link: Vec<String>,
    /// Where the runs write: a scratch directory of each run's own, or
    /// the working directory itself (`run_in`, `--run-in`).
    pub run_in: RunIn,
    /// Whether the runs are recorded instead of scheduled (`--mode
    /// recorded`): the ranks never wait for the scheduler.
    pub recorded: bool,
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
        files: None,
        workflow: Default::default(),
    }
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
    // Loads and stores are placed by return address, through the built
    // program's debug information.
    let symbols = symbols::ModuleSymbols::default();
    let sites = Resolver::new(&program.analysis, &tree.shown_root)
        .seen_from(&tree.cwd)
        .with_symbols(&symbols);
    let in_program =
        |f: &Path| program.sources.iter().any(|s| s == f) || tree.headers.iter().any(|h| h == f);
    let mut tracker = Tracker::new(progress, &shown, nprocs);
    let mut report = empty_report(shown, nprocs, opts.zero_buffer);
    report.static_facts = Some(fib_analysis::static_facts(&sites, &in_program));
    // Every call to a function fib does not model, found before running:
    // such a program is neither built nor run unless the user asks.
    let unmodelled = fib_analysis::unmodelled_calls(&sites);
    // Buffers whose C type does not match their datatype and statuses
    // written as null pointers, also found before running: reported
    // first, whatever the runs show.
    let mut mistyped = fib_analysis::buffer_mismatches(&sites).findings;
    mistyped.extend(fib_analysis::null_statuses(&sites));
    let built = if !unmodelled.is_empty() && !opts.run_unsupported {
        report.outcome = Outcome::Unsupported;
        report.findings = fib_analysis::unmodelled_findings(&sites, &unmodelled, None);
        None
    } else {
        build(tree, program, opts, &mut report)?
    };
    let Some(exe) = built else {
        report.findings.splice(0..0, mistyped);
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
            try_orders: facts.wildcards.iter().any(|w| w.any_source),
        }),
    };
    run_built(&built, opts, &mut tracker, &mut report)?;
    report.findings.splice(0..0, mistyped);
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
    let copies = AtomicBool::new(crate::settings::copy_sends());
    // A scratch directory lives in the run's private directory on fib's
    // host: the ranks a launcher of the user's starts may be elsewhere,
    // and run in the working directory itself.
    let run_in = match opts.toolchain.launcher {
        Some(_) => RunIn::Source,
        None => opts.run_in,
    };
    let mirror = match run_in {
        RunIn::Scratch => Some(scratch::Mirror::plan(
            built.cwd,
            Some(kept_files_dir(built.cwd, &report.program, report.nprocs)),
        )?),
        RunIn::Source => None,
    };
    // Without buffering, a standard send waits for its receive in the
    // engine but not in MPI, which buffers it: a recorded run could take
    // matches the engine cannot follow, so those runs are scheduled.
    let recorded = opts.recorded && !opts.zero_buffer;
    let mut spec = RunSpec {
        toolchain: &opts.toolchain,
        nprocs: report.nprocs,
        exe: built.exe,
        args: &opts.args,
        cwd: built.cwd,
        scratch: mirror.as_ref(),
        zero_buffer: opts.zero_buffer,
        // A recorded run forces only its plan's receives: no run of it
        // stands for other orders (their probe runs name sends instead).
        exchange: built.exchange.filter(|_| !recorded),
        timeout: opts.timeout,
        elide: None,
        copies: &copies,
        recorded,
    };
    let phase = Instant::now();
    let base = match explore_program(&spec, sites, opts, has_barriers, tracker, &report.program) {
        Err(DriverError::Unrecorded(what)) => {
            tracker.note(&format!(
                "{}: a recorded run cannot follow {what} yet: checked with the scheduler",
                report.program
            ));
            spec.recorded = false;
            spec.exchange = built.exchange;
            explore_program(&spec, sites, opts, has_barriers, tracker, &report.program)?
        }
        r => r?,
    };
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
    report.files = mirror
        .and_then(|m| m.kept())
        .map(|k| fib_report::KeptFiles {
            dir: k.dir.display().to_string(),
            files: k.files.iter().map(|f| f.display().to_string()).collect(),
        });
    Ok(())
}

/// Where the first run of `program` at `nprocs` processes, run in `cwd`,
/// keeps the files it wrote: `out/NAME-HASH/nN` in fib's cache, NAME the
/// program's file name and HASH naming the working directory and the
/// program as shown.
fn kept_files_dir(cwd: &Path, program: &str, nprocs: usize) -> PathBuf {
    let mut h = crate::cache::Hash::new();
    h.add(cwd.as_os_str().as_encoded_bytes());
    h.add(program.as_bytes());
    let name: String = Path::new(program)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    crate::cache::dir("out")
        .join(format!("{name}-{}", &h.hex()[..12]))
        .join(format!("n{nprocs}"))
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
        keep_first: true,
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
    report.timing.probe_runs = base.probes;
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
