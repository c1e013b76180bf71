//! `fib run -n N -- ./a.out ARGS`: checks a program fib did not build, and
//! reports it in any of `fib check`'s formats.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Parser;

use crate::{parse_mpi, write_report, Format, Line, Quiet};

#[derive(Parser)]
pub(crate) struct RunArgs {
    /// Number of MPI processes [default: 2].
    #[arg(short = 'n', long = "nprocs")]
    nprocs: Option<usize>,
    /// Make every standard send synchronous, to find deadlocks that depend
    /// on MPI buffering.
    #[arg(long)]
    zero_buffer: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Time limit of one interleaving, in seconds [default: 60].
    #[arg(long)]
    timeout: Option<f64>,
    /// Run only the interleaving this token names (as printed with a finding).
    #[arg(long)]
    replay: Option<String>,
    /// Stop after exploring this many interleavings [default: 10000].
    #[arg(long)]
    max_interleavings: Option<usize>,
    /// Run up to this many interleavings at once; the results are those of
    /// one at a time [default: the number of cores].
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: Option<u64>,
    /// Prove every barrier verdict by removal: re-explore the program with
    /// each barrier group deleted and compare what its messages can do.
    #[arg(long)]
    confirm: bool,
    /// Colour the human output: auto, always or never.
    #[arg(long, default_value = "auto")]
    color: String,
    /// Show no progress line on standard error (there is none when standard
    /// error is not a terminal).
    #[arg(long)]
    no_progress: bool,
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

/// The MPI implementation to run the program under: `--mpi`, else the one
/// it is linked with, else the one installed; and its tools.
fn toolchain(args: &RunArgs, exe: &std::path::Path) -> Result<fib_driver::Toolchain> {
    use fib_driver::Mpi;
    let linked = fib_driver::interpose::built_against(exe);
    let mpi = match (args.mpi.as_deref().map(parse_mpi).transpose()?, linked) {
        (Some(m), Some(l)) if m != l => bail!(
            "{} is linked with {l}: it cannot run under {m} (--mpi {})",
            exe.display(),
            m.key()
        ),
        (Some(m), _) | (None, Some(m)) => Mpi::choose(Some(m)),
        (None, None) => Mpi::detect(),
    }
    .map_err(anyhow::Error::msg)?;
    let libraries = fib_driver::interpose::Libraries::from_env();
    let interpose = libraries
        .library(mpi, &|m| eprintln!("fib: {m}"))
        .map_err(anyhow::Error::new)?;
    Ok(fib_driver::Toolchain {
        mpi,
        mpicc: std::env::var("FIB_MPICC").unwrap_or_else(|_| mpi.mpicc().into()),
        mpicxx: std::env::var("FIB_MPICXX").unwrap_or_else(|_| mpi.mpicxx().into()),
        mpiexec: std::env::var("FIB_MPIEXEC").unwrap_or_else(|_| mpi.mpiexec().into()),
        interpose,
    })
}

/// Checks the program and prints its report; the exit code as `fib check`'s.
pub(crate) fn run_prebuilt(args: RunArgs) -> Result<i32> {
    if args.nprocs == Some(0) {
        bail!("-n must be at least 1");
    }
    if let Some(t) = args.timeout {
        if t.is_nan() || t <= 0.0 {
            bail!("--timeout must be a positive number of seconds");
        }
    }
    let replay = match &args.replay {
        Some(t) => Some(t.parse::<poe::Token>().map_err(anyhow::Error::msg)?),
        None => None,
    };
    let exe = PathBuf::from(&args.command[0]);
    if let Some(d) = &args.cwd {
        if !d.is_dir() {
            bail!("--cwd {}: no such directory", d.display());
        }
    }
    let toolchain = toolchain(&args, &exe)?;
    let opts = fib_driver::Options {
        nprocs: args.nprocs,
        zero_buffer: args.zero_buffer,
        timeout: Duration::from_secs_f64(args.timeout.unwrap_or(60.0)),
        replay,
        max_interleavings: args.max_interleavings.unwrap_or(10_000),
        jobs: args
            .jobs
            .map_or_else(fib_driver::workflow::default_jobs, |j| j as usize),
        exhaustive: false,
        toolchain,
        args: args.command[1..].to_vec(),
        cwd: args.cwd.clone(),
        confirm: args.confirm,
        run_unsupported: true,
        link: Vec::new(),
    };
    let line =
        (!args.no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(Line::new);
    install_interrupts(line.as_ref().map(|l| l.bar.clone()))?;
    let checked = match &line {
        Some(line) => fib_driver::run_prebuilt(&exe, &opts, line),
        None => fib_driver::run_prebuilt(&exe, &opts, &Quiet),
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
    write_report(&report, args.format, &args.color, args.output.as_deref())?;
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
