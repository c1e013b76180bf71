//! `fib run -n N -- ./a.out ARGS`: checks a program fib did not build, and
//! reports it in any of `fib check`'s formats.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context, Result};
use clap::Parser;

use crate::{parse_mpi, ExploreArgs, OutputArgs, Quiet};

#[derive(Parser)]
pub(crate) struct RunArgs {
    // Number of MPI processes.
    #[arg(short = 'n', long = "nprocs", help = format!(
        "Number of MPI processes [default: {}]",
        fib_driver::settings::DEFAULT_NPROCS
    ))]
    nprocs: Option<usize>,
    #[command(flatten)]
    explore: ExploreArgs,
    #[command(flatten)]
    out: OutputArgs,
    /// The MPI implementation to run under: mpich or openmpi [default: the
    /// one the program is linked with].
    #[arg(long, value_name = "MPI")]
    mpi: Option<String>,
    /// The directory the program runs in [default: the current directory].
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The program (an MPI executable, linked with the shared MPI library)
    /// and its arguments.
    #[arg(
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PROGRAM"
    )]
    command: Vec<String>,
}

/// Checks the program and prints its report; the exit code as `fib check`'s.
pub(crate) fn run_prebuilt(args: RunArgs) -> Result<i32> {
    if args.nprocs == Some(0) {
        bail!("-n must be at least 1");
    }
    let timeout = args.explore.timeout()?;
    let replay = args.explore.replay()?;
    let exe = PathBuf::from(&args.command[0]);
    if let Some(d) = &args.cwd {
        if !d.is_dir() {
            bail!("--cwd {}: no such directory", d.display());
        }
    }
    let mpi = args.mpi.as_deref().map(parse_mpi).transpose()?;
    let mut toolchain = fib_driver::toolchain::for_program(&exe, mpi, &|m| eprintln!("fib: {m}"))
        .map_err(anyhow::Error::new)?;
    toolchain.launcher = args.explore.launcher()?;
    let unseen = fib_driver::unseen_memory(&exe);
    if !unseen.is_empty() {
        eprintln!(
            "fib: note: {} calls {}, whose buffers MPI owns until they complete; fib did not build it, so it does not see its loads and stores and cannot check them (FIB034): `fib check` on its sources can",
            exe.display(),
            unseen.join(", ")
        );
    }
    let request = fib_driver::Prebuilt {
        exe: exe.clone(),
        args: args.command[1..].to_vec(),
        nprocs: args.nprocs,
        zero_buffer: args.explore.zero_buffer,
        timeout,
        replay,
        max_interleavings: args.explore.max_interleavings,
        jobs: args.explore.jobs.map(|j| j as usize),
        confirm: args.explore.confirm,
        cwd: args.cwd.clone(),
        run_in: args.explore.run_in(),
        mode: args.explore.mode(),
    };
    let line = args.out.line();
    install_interrupts(line.as_ref().map(|l| l.bar.clone()))?;
    let checked = match &line {
        Some(line) => fib_driver::run_prebuilt(&request, toolchain, line),
        None => fib_driver::run_prebuilt(&request, toolchain, &Quiet),
    };
    if let Some(line) = &line {
        line.bar.finish_and_clear();
    }
    if checked.is_err() && fib_driver::interrupted() {
        eprintln!("fib: interrupted");
        return Ok(130);
    }
    let mut report = checked.map_err(|e| match e {
        // Bad input names the file itself.
        fib_driver::DriverError::Input(m) => anyhow::Error::msg(m),
        e => anyhow::Error::new(e).context(format!("running {}", exe.display())),
    })?;
    if fib_driver::interrupted() {
        report.interrupted = true;
        eprintln!("fib: interrupted; the report holds what was found before");
    }
    args.out.write(&report)?;
    Ok(report.exit_code())
}

/// The first Ctrl-C stops the check, which then reports what it found (the
/// progress line goes for good: the check only winds up from there); the
/// second exits at once.
pub(crate) fn install_interrupts(bar: Option<indicatif::ProgressBar>) -> Result<()> {
    static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
    ctrlc::set_handler(move || {
        if let Some(bar) = &bar {
            bar.finish_and_clear();
        }
        if INTERRUPTS.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!("fib: interrupted; stopping (Ctrl-C again to quit at once)");
            fib_driver::interrupt();
        } else {
            fib_driver::kill_current_run();
            eprintln!("fib: interrupted");
            std::process::exit(130);
        }
    })
    .context("installing the interrupt handler")
}
