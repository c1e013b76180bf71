//! One `fib check` as a project runs it, the driver's front door for it:
//! the programs of several paths ([`paths`]: each file's program checked
//! once, each tree with its `fib.toml`) or those a build command links
//! ([`build`]), each checked at each of its process counts with the options
//! the command line, the configuration and the defaults of
//! [`crate::settings`] give ([`check_program`]); then the waivers in the
//! sources and the configuration's severity overrides ([`finish`]). The
//! baseline file is read and written by [`baseline`]. The decisions are
//! the pure modules' of `fib_report` (`waivers`, `overrides`, `baseline`);
//! this module reads the files they need.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fib_report::{overrides, waivers, NotChecked, Report};
use poe::Token;

use crate::processes;
use crate::project::config::Config;
use crate::project::{Program, Tree};
use crate::run::progress::Progress;
use crate::run::{verify, Options};
use crate::settings::{
    default_jobs, RunIn, Tools, DEFAULT_MAX_INTERLEAVINGS, DEFAULT_NPROCS, DEFAULT_TIMEOUT,
};
use crate::toolchain::{Libraries, Mpi, Toolchain};
use crate::DriverError;

mod baseline;
mod build;
mod paths;

pub use baseline::{apply_baseline, read_baseline, write_baseline};

/// What the command line asks for. `None` (or empty) where the command line
/// says nothing, so that `fib.toml` can.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Files and directories to check: at least one.
    pub paths: Vec<PathBuf>,
    /// Process counts (`-n 2,4`); empty when not given.
    pub nprocs: Vec<usize>,
    pub zero_buffer: bool,
    pub timeout: Option<Duration>,
    pub replay: Option<Token>,
    pub max_interleavings: Option<usize>,
    /// How many interleavings run at once (`--jobs`).
    pub jobs: Option<usize>,
    /// Explore every order of exchangeable wildcard receives and of free
    /// rows of `MPI_Waitany` (`--exhaustive`).
    pub exhaustive: bool,
    pub confirm: bool,
    /// Run programs that call MPI functions fib does not model anyway.
    pub run_unsupported: bool,
    /// Arguments for the programs (after `--`); `None` when none are given.
    pub args: Option<Vec<String>>,
    /// The MPI implementation asked for on the command line (`--mpi`);
    /// else the tree's `fib.toml`, else the one installed (MPICH first).
    pub mpi: Option<Mpi>,
    /// The ranks' working directory (`--cwd`); by default each program's
    /// own directory.
    pub cwd: Option<PathBuf>,
    /// The user's build command (`--build`): the programs are what it
    /// links, run in the one directory of `paths`.
    pub build: Option<String>,
    /// Where the runs write (`--run-in`); else `fib.toml`'s `run_in`, else
    /// a scratch directory.
    pub run_in: Option<RunIn>,
    /// The launch command (`--launcher`); else `fib.toml`'s `launcher`,
    /// else the implementation's `mpiexec`.
    pub launcher: Option<crate::settings::Launcher>,
    /// How the runs go (`--mode`); else `fib.toml`'s `mode`, else
    /// scheduled.
    pub mode: Option<crate::settings::Mode>,
}

/// What a check found, and what fib has to tell about the paths themselves
/// (a file left out by `ignore`, a header no program uses).
#[derive(Debug, Default)]
pub struct Checked {
    pub report: Report,
    pub notes: Vec<String>,
    /// The main sources already checked (canonical paths): a program named
    /// twice is checked once.
    seen: HashSet<PathBuf>,
}

/// Checks every program `req.paths` name (or, with `req.build`, every
/// program the build links), each once, at each of its process counts,
/// telling `progress` how each check goes; then applies the waivers of
/// their sources and each tree's severity overrides.
///
/// Once the user interrupts fib ([`crate::interrupt`]), the check in
/// progress reports what it has, the ones after it are listed in
/// [`Report::not_checked`], and the report is marked
/// [`Report::interrupted`].
pub fn check_paths(req: &Request, progress: &dyn Progress) -> Result<Checked, DriverError> {
    let session = Session {
        req,
        progress,
        tools: Tools::from_env(),
        libraries: Libraries::from_env(),
    };
    match &req.build {
        Some(command) => build::check_build(&session, command),
        None => paths::check_paths(&session),
    }
}

/// One check: what the command line asks for, where it reports, and what
/// fib's environment gives (the tools the user names, the interposition
/// libraries).
struct Session<'a> {
    req: &'a Request,
    progress: &'a dyn Progress,
    tools: Tools,
    libraries: Libraries,
}

impl Session<'_> {
    /// The tools a tree is checked with: the implementation the command
    /// line, else the tree's `fib.toml`, asks for, else the one installed;
    /// its interposition library (built first if need be).
    fn toolchain(&self, s: &Config) -> Result<Toolchain, DriverError> {
        let mpi = match (self.req.mpi, s.mpi) {
            (Some(m), _) => Mpi::choose(Some(m)),
            (None, Some(m)) => {
                Mpi::choose(Some(m)).map_err(|e| format!("{} asks for {m}: {e}", s.file.display()))
            }
            (None, None) => Mpi::detect(),
        }
        .map_err(DriverError::Input)?;
        let mut tc = Toolchain::for_mpi(mpi, &self.tools, &self.libraries, &|m| {
            self.progress.note(m)
        })?;
        tc.launcher = self.req.launcher.clone().or_else(|| s.launcher.clone());
        Ok(tc)
    }
}

/// What a tree's programs are checked with: its `fib.toml` and the MPI
/// toolchain.
struct Setup<'a> {
    config: &'a Config,
    toolchain: &'a Toolchain,
}

/// Checks `program` of `tree` at each of its process counts, adding its
/// reports to `report`; a check the user interrupted, or one after the
/// interrupt, is listed as not checked.
fn check_program(
    session: &Session,
    setup: &Setup,
    tree: &Tree,
    program: &Program,
    report: &mut Report,
    checked: &mut Checked,
) -> Result<(), DriverError> {
    let sources: Vec<String> = program.sources.iter().map(|s| tree.show(s)).collect();
    let mut built = false;
    for opts in options(session.req, setup.config, tree, program, setup.toolchain) {
        let not_checked = || NotChecked {
            program: tree.show(&program.main),
            nprocs: opts.nprocs,
        };
        if processes::interrupted() {
            checked.report.not_checked.push(not_checked());
            continue;
        }
        match verify(tree, program, &opts, session.progress) {
            Ok(mut r) => {
                built |= r.build.is_some();
                r.workflow.sources = sources.clone();
                report.programs.push(r);
            }
            Err(DriverError::Interrupted) => checked.report.not_checked.push(not_checked()),
            Err(e) => return Err(e),
        }
    }
    // What libclang rejected and the compiler built: said once, when the
    // parse ran (a kept parse has none). A program that does not build
    // shows the compiler's own errors instead.
    if built && !program.parse_errors.is_empty() {
        checked.notes.push(parse_errors_note(tree, program));
    }
    Ok(())
}

/// How many of libclang's errors a note shows.
const ERRORS_SHOWN: usize = 3;

/// The note on the errors libclang reported in `program`, which the
/// compiler built: where they are, and what they may cost.
fn parse_errors_note(tree: &Tree, program: &Program) -> String {
    let root = std::fs::canonicalize(&tree.root).unwrap_or_else(|_| tree.root.clone());
    let at = |e: &instrument::ParseError| match &e.file {
        Some(f) => match f.strip_prefix(&root) {
            Ok(rel) => format!("{}:{}:{}: ", tree.show(rel), e.line, e.column),
            Err(_) => format!("{}:{}:{}: ", f.display(), e.line, e.column),
        },
        None => String::new(),
    };
    let errors = &program.parse_errors;
    let mut shown: Vec<String> = errors
        .iter()
        .take(ERRORS_SHOWN)
        .map(|e| format!("{}{}", at(e), e.message))
        .collect();
    if errors.len() > ERRORS_SHOWN {
        shown.push(format!("and {} more", errors.len() - ERRORS_SHOWN));
    }
    format!(
        "{}: libclang reported {} the compiler does not raise ({}); fib's static facts may miss \
         what the code around {} holds (told when the sources are parsed, not at every check)",
        tree.show(&program.main),
        if errors.len() == 1 {
            "an error".to_string()
        } else {
            format!("{} errors", errors.len())
        },
        shown.join("; "),
        if errors.len() == 1 { "it" } else { "them" },
    )
}

/// Applies the waivers of the sources of `report`'s programs and the
/// severity overrides of `config` to them, and adds them to `checked`.
fn finish(session: &Session, config: &Config, mut report: Report, checked: &mut Checked) {
    // A waiver whose finding an unfinished check did not reach yet is
    // not unused.
    let complete = session.req.replay.is_none() && !processes::interrupted();
    waivers::apply(&mut report, &mut read, complete);
    for p in &mut report.programs {
        overrides::apply(p, &config.severity);
    }
    checked.report.programs.extend(report.programs);
}

/// A file's text, by the path a report shows it with.
fn read(path: &str) -> Option<String> {
    instrument::read_source(Path::new(path)).ok()
}

/// The options of each check of `program`, one per process count: the
/// command line first, then the program's `[programs."..."]` table, its
/// `fib:` directive (for the count), the file's top level, the defaults.
/// The ranks of a program a `--build` command made run where the command
/// ran (`tree`'s root), as the user would run it after that build.
fn options(
    req: &Request,
    s: &Config,
    tree: &Tree,
    program: &Program,
    tc: &Toolchain,
) -> Vec<Options> {
    let own = s.program(&program.main).cloned().unwrap_or_default();
    let counts = if !req.nprocs.is_empty() {
        req.nprocs.clone()
    } else if let Some(n) = own.nprocs {
        n
    } else if let Some(n) = program.directive_nprocs {
        vec![n]
    } else if let Some(n) = &s.nprocs {
        n.clone()
    } else {
        vec![DEFAULT_NPROCS]
    };
    let mut unique = Vec::new();
    for n in counts {
        if !unique.contains(&n) {
            unique.push(n);
        }
    }
    unique
        .into_iter()
        .map(|n| Options {
            nprocs: Some(n),
            zero_buffer: req.zero_buffer || s.zero_buffer.unwrap_or(false),
            timeout: req
                .timeout
                .or(own.timeout)
                .or(s.timeout)
                .unwrap_or(DEFAULT_TIMEOUT),
            replay: req.replay.clone(),
            max_interleavings: req
                .max_interleavings
                .or(s.max_interleavings)
                .unwrap_or(DEFAULT_MAX_INTERLEAVINGS),
            jobs: req.jobs.or(s.jobs).unwrap_or_else(default_jobs),
            exhaustive: req.exhaustive || s.exhaustive.unwrap_or(false),
            toolchain: tc.clone(),
            cwd: req
                .cwd
                .clone()
                .or_else(|| req.build.is_some().then(|| tree.root.clone())),
            args: req.args.clone().or(own.args.clone()).unwrap_or_default(),
            confirm: req.confirm || s.confirm.unwrap_or(false),
            run_unsupported: req.run_unsupported,
            link: s.link.iter().chain(&own.link).cloned().collect(),
            run_in: req.run_in.or(own.run_in).or(s.run_in).unwrap_or_default(),
            recorded: req.mode.or(s.mode).unwrap_or_default() == crate::settings::Mode::Recorded,
        })
        .collect()
}
