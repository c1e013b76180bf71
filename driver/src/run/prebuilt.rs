//! `fib run`: checks a program fib did not build. No discovery,
//! instrumentation or build: the binary is launched as it is, with the
//! interposition library preloaded, and explored, judged and reported as
//! [`verify`](super::verify) does a built program. Its ranks name their
//! calls by return address, which the modules' debug information or
//! symbol tables place ([`super::symbols`]); when that information names
//! sources that exist, they are analysed as `fib check` analyses a
//! program's ([`super::sources`]), and a call placed on a line of theirs is
//! the site table's call there, with its static facts (what a barrier
//! orders besides messages, whether input decides it runs). The notes say
//! which facts are missing, and where.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fib_analysis::Resolver;
use fib_report::{ProgramReport, Report};
use object::{Object, ObjectSymbol};
use poe::Token;

use super::progress::{Progress, Tracker};
use super::symbols::ModuleSymbols;
use super::{empty_report, run_built, Built, Options};
use crate::settings::{default_jobs, DEFAULT_MAX_INTERLEAVINGS, DEFAULT_NPROCS, DEFAULT_TIMEOUT};
use crate::toolchain::Toolchain;
use crate::DriverError;

/// What `fib run` asks for: the program, its arguments, and the options
/// the command line gives (`None` where it says nothing: the defaults of
/// [`crate::settings`] then).
#[derive(Clone, Debug, Default)]
pub struct Prebuilt {
    /// The program, as the user named it.
    pub exe: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The process count; 2 when `None`.
    pub nprocs: Option<usize>,
    pub zero_buffer: bool,
    /// The time limit of one interleaving.
    pub timeout: Option<Duration>,
    /// Run only this interleaving.
    pub replay: Option<Token>,
    /// Stop exploring after this many interleavings.
    pub max_interleavings: Option<usize>,
    /// How many interleavings may run at once.
    pub jobs: Option<usize>,
    /// Prove each barrier verdict by re-exploring without the group.
    pub confirm: bool,
    /// The ranks' working directory; by default the current directory.
    pub cwd: Option<PathBuf>,
    /// Where the runs write; by default a scratch directory of each run's
    /// own ([`crate::settings::RunIn`]).
    pub run_in: Option<crate::settings::RunIn>,
    /// How the runs go (`--mode`).
    pub mode: Option<crate::settings::Mode>,
}

/// Checks the program `req.exe` (as the user named it) under `toolchain`
/// (see [`crate::toolchain::for_program`]). A file that is no dynamically
/// linked MPI program is an input error naming it, found before anything
/// runs.
pub fn run_prebuilt(
    req: &Prebuilt,
    toolchain: Toolchain,
    progress: &dyn Progress,
) -> Result<Report, DriverError> {
    let opts = Options {
        nprocs: req.nprocs,
        zero_buffer: req.zero_buffer,
        timeout: req.timeout.unwrap_or(DEFAULT_TIMEOUT),
        replay: req.replay.clone(),
        max_interleavings: req.max_interleavings.unwrap_or(DEFAULT_MAX_INTERLEAVINGS),
        jobs: req.jobs.unwrap_or_else(default_jobs),
        exhaustive: false,
        toolchain,
        args: req.args.clone(),
        cwd: req.cwd.clone(),
        confirm: req.confirm,
        run_unsupported: true,
        link: Vec::new(),
        run_in: req.run_in.unwrap_or_default(),
        recorded: req.mode == Some(crate::settings::Mode::Recorded),
    };
    let exe = req.exe.as_path();
    let opts = &opts;
    let path = usable(exe)?;
    let started = Instant::now();
    let shown = exe.display().to_string();
    let nprocs = opts.nprocs.unwrap_or(DEFAULT_NPROCS);
    if nprocs == 0 {
        return Err(DriverError::Input(format!(
            "{shown}: the process count must be at least 1"
        )));
    }
    let program = super::sources::analyse(&path, &shown, &opts.toolchain);
    for n in &program.notes {
        progress.note(&format!("note: {n}"));
    }
    let symbols = ModuleSymbols::default().with_root(program.root.clone());
    let sites = Resolver::new(&program.analysis, &program.shown_root).with_symbols(&symbols);
    let mut tracker = Tracker::new(progress, &shown, nprocs);
    let mut report: ProgramReport = empty_report(shown.clone(), nprocs, opts.zero_buffer);
    if program.root.is_some() {
        let root = program.root.as_deref();
        let analysed = |f: &Path| root.is_some_and(|r| r.join(f).is_file());
        report.static_facts = Some(fib_analysis::static_facts(&sites, &analysed));
    }
    // Nothing tells which calls are barriers before the runs: keep every
    // run's trace for the Fib pass.
    let cwd = match &opts.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| DriverError::Io("the current directory".into(), e))?,
    };
    let built = Built {
        exe: &path,
        cwd: &cwd,
        sites: &sites,
        has_barriers: true,
        unmodelled: &[],
        exchange: None,
    };
    run_built(&built, opts, &mut tracker, &mut report)?;
    if let Some(n) = unmatched_note(&sites.unmatched(), &shown) {
        progress.note(&format!("note: {n}"));
    }
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(Report {
        programs: vec![report],
        ..Report::default()
    })
}

/// What to say of the calls the binary makes on lines of its analysed
/// sources where the parse has no call: the parse did not see the program
/// the binary was built from.
fn unmatched_note(unmatched: &[fib_analysis::Unmatched], shown: &str) -> Option<String> {
    let first = unmatched.first()?;
    let more = match unmatched.len() {
        1 => String::new(),
        2 => " and 1 other call".to_string(),
        n => format!(" and {} other calls", n - 1),
    };
    Some(format!(
        "{shown} calls {} at line {} of {}{more} where fib's parse of the sources has no such call: the sources changed since the build, or were compiled with flags the debug information does not record (-D, -I: give them as `cflags` in fib.toml beside the sources, or in a compile_commands.json); for these calls, {}",
        first.callee,
        first.line,
        first.file,
        super::sources::MISSING_FACTS
    ))
}

/// The absolute path of `exe` when it is an executable, dynamically linked
/// MPI program; an error naming it otherwise.
fn usable(exe: &Path) -> Result<std::path::PathBuf, DriverError> {
    let shown = exe.display();
    let bad = |why: &str| DriverError::Input(format!("{shown}: {why}"));
    let meta = std::fs::metadata(exe).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad("no such file"),
        _ => bad(&e.to_string()),
    })?;
    if meta.is_dir() {
        return Err(bad(
            "is a directory, not a program (fib check takes sources and directories)",
        ));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(bad("is not executable"));
    }
    let data = std::fs::read(exe).map_err(|e| bad(&e.to_string()))?;
    if data.starts_with(b"#!") {
        return Err(bad(
            "is a script, not a program: fib run launches the MPI program itself (name the binary the script starts)",
        ));
    }
    let file = object::File::parse(&*data)
        .map_err(|_| bad("is not an executable program (no ELF header)"))?;
    mpi_linked(&file).map_err(bad)?;
    std::fs::canonicalize(exe).map_err(|e| bad(&e.to_string()))
}

/// Whether the program calls MPI through the dynamic linker, where the
/// interposition library can stand in front of it.
fn mpi_linked(file: &object::File) -> Result<(), &'static str> {
    let is_init = |name: &str| name == "MPI_Init" || name == "MPI_Init_thread";
    let imported = file
        .dynamic_symbols()
        .any(|s| s.is_undefined() && s.name().is_ok_and(is_init));
    if imported {
        return Ok(());
    }
    let defined = file
        .symbols()
        .chain(file.dynamic_symbols())
        .any(|s| s.is_definition() && s.name().is_ok_and(is_init));
    if defined {
        Err("has MPI linked in statically: fib stands in front of MPI through the dynamic linker (link the program with the shared MPI library, as mpicc.mpich does by default)")
    } else {
        Err("is not linked with an MPI library (it never calls MPI_Init or MPI_Init_thread)")
    }
}

/// The MPI functions `exe` calls that hand MPI memory past their return
/// (nonblocking and persistent operations, nonblocking collectives,
/// one-sided calls): fib did not build the program, so it cannot see the
/// program's loads and stores of that memory. Empty when the program calls
/// none, or is not a readable ELF file.
pub fn unseen_memory(exe: &Path) -> Vec<String> {
    let Ok(data) = std::fs::read(exe) else {
        return Vec::new();
    };
    let Ok(file) = object::File::parse(&*data) else {
        return Vec::new();
    };
    let mut names: Vec<String> = file
        .dynamic_symbols()
        .chain(file.symbols())
        .filter(|s| s.is_undefined())
        .filter_map(|s| s.name().ok())
        .map(|n| n.split('@').next().unwrap_or(n).to_string())
        .filter(|n| super::build::owns_memory(n))
        .collect();
    names.sort();
    names.dedup();
    names
}
