//! `fib check --build CMD [DIR]`: runs the user's build with fib's compiler
//! wrappers ([`crate::project::buildcmd`]), and checks each program it
//! linked as the programs of a directory are checked
//! ([`super::check_program`]).

use std::path::PathBuf;

use fib_report::Report;

use super::{check_program, finish, Checked, Request, Session, Setup};
use crate::processes;
use crate::project::buildcmd;
use crate::project::config::{self, Config};
use crate::toolchain::Mpi;
use crate::DriverError;

/// The MPI compiler the check will use (the wrappers in `CC`... stand
/// for it when the user set none): `FIB_MPICC`, else that of the
/// implementation the command line, else `fib.toml`, asks for, else the
/// one installed.
fn compiler(session: &Session, s: &Config) -> Result<String, DriverError> {
    if let Some(c) = &session.tools.mpicc {
        return Ok(c.clone());
    }
    let mpi = Mpi::choose(session.req.mpi.or(s.mpi)).map_err(DriverError::Input)?;
    Ok(mpi.mpicc().to_string())
}

/// The directory `fib check --build` runs the build in: the one path
/// given, else `.`.
fn build_dir(req: &Request) -> Result<PathBuf, DriverError> {
    match req.paths.as_slice() {
        [] => Ok(PathBuf::from(".")),
        [p] if p.is_dir() => Ok(p.clone()),
        [p] => Err(DriverError::Input(format!(
            "{}: --build runs the build in a directory; this is not one",
            p.display()
        ))),
        _ => Err(DriverError::Input(
            "--build takes one directory (where the build command runs)".into(),
        )),
    }
}

/// `fib check --build COMMAND [DIR]`: runs the build, then checks each
/// program it linked (at each process count), then applies the waivers of
/// their sources and `fib.toml`'s severity overrides. A program whose
/// `main` source several executables share is named with its executable.
pub(super) fn check_build(session: &Session, command: &str) -> Result<Checked, DriverError> {
    let root = build_dir(session.req)?;
    let config = config::load(&root)?.unwrap_or_default();
    // The build first: when it fails, nothing else matters.
    let record = buildcmd::run_build(&root, command, &compiler(session, &config)?)?;
    let toolchain = session.toolchain(&config)?;
    let base = instrument::mpi_flags(&toolchain.mpicc).map_err(DriverError::Instrument)?;
    let top = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
    let cflags = config.cflags_in(&top);
    let (programs, notes) = buildcmd::programs(&root, command, &record, &base, &cflags)?;
    let mut checked = Checked {
        notes,
        ..Checked::default()
    };
    let setup = Setup {
        config: &config,
        toolchain: &toolchain,
    };
    let mut report = Report::default();
    for (exe, tree, program) in &programs {
        let shared = programs
            .iter()
            .filter(|(_, _, p)| p.main == program.main)
            .count()
            > 1;
        check_program(session, &setup, tree, program, &mut report, &mut checked)?;
        if shared {
            let name = exe
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            for p in report
                .programs
                .iter_mut()
                .filter(|p| p.program == tree.show(&program.main))
            {
                p.program = format!("{} ({name})", p.program);
            }
        }
    }
    finish(session, &config, report, &mut checked);
    checked.report.interrupted = processes::interrupted();
    Ok(checked)
}
