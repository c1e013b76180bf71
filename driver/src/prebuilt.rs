//! `fib run`: checks a program fib did not build. No discovery,
//! instrumentation or build: the binary is launched as it is, with the
//! interposition library preloaded, and explored, judged and reported as
//! [`check`](crate::check) does a built program. Its ranks name their
//! calls by return address, which the modules' debug information or
//! symbol tables place ([`crate::symbols`]).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Instant;

use fib_analysis::Resolver;
use fib_report::{ProgramReport, Report};
use instrument::Analysis;
use object::{Object, ObjectSymbol};

use crate::check::{empty_report, run_built, Built, Options, DEFAULT_NPROCS};
use crate::progress::{Progress, Tracker};
use crate::symbols::ModuleSymbols;
use crate::DriverError;

/// Checks the program `exe` (as the user named it), with `opts`; its
/// arguments are `opts.args`. A file that is no dynamically linked MPI
/// program is an input error naming it, found before anything runs.
pub fn run_prebuilt(
    exe: &Path,
    opts: &Options,
    progress: &dyn Progress,
) -> Result<Report, DriverError> {
    let path = usable(exe)?;
    let started = Instant::now();
    let shown = exe.display().to_string();
    let nprocs = opts.nprocs.unwrap_or(DEFAULT_NPROCS);
    if nprocs == 0 {
        return Err(DriverError::Input(format!(
            "{shown}: the process count must be at least 1"
        )));
    }
    let analysis = Analysis::default();
    let symbols = ModuleSymbols::default();
    let sites = Resolver::new(&analysis, Path::new("")).with_symbols(&symbols);
    let mut tracker = Tracker::new(progress, &shown, nprocs);
    let mut report: ProgramReport = empty_report(shown, nprocs, opts.zero_buffer);
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
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(Report {
        programs: vec![report],
        ..Report::default()
    })
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
