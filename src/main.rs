//! The `fib` command line: parses arguments, runs the driver on each program
//! and prints the report. All the work is in the library crates.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "fib",
    version,
    about = "Verifies MPI programs: deadlocks, crashes, and which barriers they can do without",
    after_help = "Exit codes: 0 nothing found, 1 something found, 2 fib could not check a program."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build MPI C/C++ programs, run each under the POE scheduler over every
    /// relevant interleaving, and report what can go wrong.
    Check(CheckArgs),
    /// Print the documentation of a finding code (e.g. `fib explain FIB001`).
    Explain { code: String },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
    /// A self-contained HTML page (with `-o`, for a browser).
    Html,
}

#[derive(Parser)]
struct CheckArgs {
    /// A C/C++ source file, or a directory whose programs (each source that
    /// defines main, with the other sources of its directory) are all checked.
    path: PathBuf,
    /// Number of MPI processes (default: a program's `fib: -n N` comment,
    /// else 2).
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
    /// Time limit of one interleaving, in seconds.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Run only the interleaving this token names (as printed with a finding).
    #[arg(long)]
    replay: Option<String>,
    /// Stop after exploring this many interleavings.
    #[arg(long, default_value_t = 10_000)]
    max_interleavings: usize,
    /// Prove every barrier verdict by removal: re-explore the program with
    /// each barrier group deleted and compare what its messages can do.
    #[arg(long)]
    confirm: bool,
    /// Colour the human output: auto, always or never.
    #[arg(long, default_value = "auto")]
    color: String,
    /// Arguments for the program.
    #[arg(last = true)]
    args: Vec<String>,
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            eprintln!("fib: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<i32> {
    let cli = Cli::parse();
    match cli.command {
        Command::Explain { code } => match fib_report::explain(&code) {
            Some(text) => {
                print_out(&text);
                Ok(0)
            }
            None => bail!("unknown finding code `{code}` (codes look like FIB001)"),
        },
        Command::Check(args) => check(args),
    }
}

/// Writes to stdout; a closed pipe (`fib ... | head`) is not an error.
fn print_out(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The interposition library: beside the `fib` binary, or where
/// `FIB_INTERPOSE_LIB` says.
fn interpose_lib() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("FIB_INTERPOSE_LIB") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().context("locating the fib binary")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for d in [dir, dir.parent().unwrap_or(dir)] {
        let p = d.join("libfib_interpose.so");
        if p.exists() {
            return Ok(p);
        }
    }
    bail!(
        "libfib_interpose.so is not next to {} (build the workspace with `cargo build --workspace`, or set FIB_INTERPOSE_LIB)",
        exe.display()
    )
}

fn check(args: CheckArgs) -> Result<i32> {
    if args.nprocs == Some(0) {
        bail!("-n must be at least 1");
    }
    if !args.path.exists() {
        bail!("{}: no such file or directory", args.path.display());
    }
    if args.timeout.is_nan() || args.timeout <= 0.0 {
        bail!("--timeout must be a positive number of seconds");
    }
    let replay = match &args.replay {
        Some(t) => Some(t.parse::<poe::Token>().map_err(anyhow::Error::msg)?),
        None => None,
    };
    let opts = fib_driver::Options {
        nprocs: args.nprocs,
        zero_buffer: args.zero_buffer,
        timeout: Duration::from_secs_f64(args.timeout),
        replay,
        max_interleavings: args.max_interleavings,
        interpose: interpose_lib()?,
        mpicc: std::env::var("FIB_MPICC").unwrap_or_else(|_| "mpicc.mpich".into()),
        mpiexec: std::env::var("FIB_MPIEXEC").unwrap_or_else(|_| "mpiexec.mpich".into()),
        args: args.args.clone(),
        confirm: args.confirm,
    };
    ctrlc::set_handler(|| {
        fib_driver::kill_current_run();
        eprintln!("fib: interrupted");
        std::process::exit(130);
    })
    .context("installing the interrupt handler")?;

    let report = fib_driver::check(&args.path, &opts);
    if fib_driver::interrupted() {
        // The handler is killing the run and exits with 130; what the run
        // saw of its own death is not a result.
        loop {
            std::thread::park();
        }
    }
    let report = report.with_context(|| format!("checking {}", args.path.display()))?;
    let mut text = match args.format {
        Format::Json => fib_report::emit::json::render(&report),
        Format::Html => fib_report::emit::html::render(&report),
        Format::Human => {
            let color = match args.color.as_str() {
                "always" => true,
                "never" => false,
                // A file is not a terminal.
                _ if args.output.is_some() => false,
                _ => std::io::IsTerminal::is_terminal(&std::io::stdout()),
            };
            fib_report::emit::human::render(&report, color)
        }
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match &args.output {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("writing the report to {}", path.display()))?,
        None => print_out(&text),
    }
    Ok(report.exit_code())
}
