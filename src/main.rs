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
    Check(Box<CheckArgs>),
    /// Print the documentation of a finding code (e.g. `fib explain FIB001`).
    Explain { code: String },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
    /// A SARIF 2.1.0 log, for code-scanning services.
    Sarif,
    /// GitHub Actions workflow commands: one annotation per finding.
    Github,
    /// A self-contained HTML page (with `-o`, for a browser).
    Html,
}

#[derive(Parser)]
struct CheckArgs {
    /// C/C++ source files or directories. A directory's programs (each
    /// source that defines main, with the other sources of its directory)
    /// are all checked; a file's program once, however often it is named.
    #[arg(required = true, num_args = 1..)]
    paths: Vec<PathBuf>,
    /// Number of MPI processes, or several (`-n 2,4,8`: each program is
    /// checked at each). Default: `fib.toml`, a program's `fib: -n N`
    /// comment, else 2.
    #[arg(short = 'n', long = "nprocs", value_delimiter = ',')]
    nprocs: Vec<usize>,
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
    /// Prove every barrier verdict by removal: re-explore the program with
    /// each barrier group deleted and compare what its messages can do.
    #[arg(long)]
    confirm: bool,
    /// Run a program that calls MPI functions fib does not model anyway
    /// (they are still reported as FIB006); by default it is not run.
    #[arg(long)]
    run_unsupported: bool,
    /// Colour the human output: auto, always or never.
    #[arg(long, default_value = "auto")]
    color: String,
    /// Fail only on findings this baseline file (from --write-baseline)
    /// does not list; the known ones are left out of the report.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    baseline: Option<PathBuf>,
    /// Write the findings (after waivers) to FILE as a baseline, and exit
    /// 0 unless a program could not be checked.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
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
        Command::Check(args) => check(*args),
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
    if args.nprocs.contains(&0) {
        bail!("-n must be at least 1");
    }
    if let Some(t) = args.timeout {
        if t.is_nan() || t <= 0.0 {
            bail!("--timeout must be a positive number of seconds");
        }
    }
    for path in &args.paths {
        if !path.exists() {
            bail!("{}: no such file or directory", path.display());
        }
    }
    let replay = match &args.replay {
        Some(t) => Some(t.parse::<poe::Token>().map_err(anyhow::Error::msg)?),
        None => None,
    };
    // Read before the check, so that a bad file stops fib at once.
    let baseline = match &args.baseline {
        Some(file) => Some(fib_driver::workflow::read_baseline(file)?),
        None => None,
    };
    let request = fib_driver::Request {
        paths: args.paths.clone(),
        nprocs: args.nprocs.clone(),
        zero_buffer: args.zero_buffer,
        timeout: args.timeout.map(Duration::from_secs_f64),
        replay,
        max_interleavings: args.max_interleavings,
        interpose: interpose_lib()?,
        mpicc: std::env::var("FIB_MPICC").unwrap_or_else(|_| "mpicc.mpich".into()),
        mpiexec: std::env::var("FIB_MPIEXEC").unwrap_or_else(|_| "mpiexec.mpich".into()),
        args: (!args.args.is_empty()).then(|| args.args.clone()),
        confirm: args.confirm,
        run_unsupported: args.run_unsupported,
    };
    ctrlc::set_handler(|| {
        fib_driver::kill_current_run();
        eprintln!("fib: interrupted");
        std::process::exit(130);
    })
    .context("installing the interrupt handler")?;

    let checked = fib_driver::check_paths(&request);
    if fib_driver::interrupted() {
        // The handler is killing the run and exits with 130; what the run
        // saw of its own death is not a result.
        loop {
            std::thread::park();
        }
    }
    let shown: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    let fib_driver::Checked { mut report, notes } =
        checked.with_context(|| format!("checking {}", shown.join(" ")))?;
    for note in notes {
        eprintln!("fib: {note}");
    }
    if let (Some(b), Some(file)) = (&baseline, &args.baseline) {
        fib_driver::workflow::apply_baseline(b, file, &mut report);
    }
    let mut text = match args.format {
        Format::Json => fib_report::emit::json::render(&report),
        Format::Sarif => fib_report::emit::sarif::render(&report),
        Format::Github => fib_report::emit::github::render(&report),
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
    if let Some(file) = &args.write_baseline {
        let n = fib_driver::workflow::write_baseline(file, &report)?;
        eprintln!(
            "fib: wrote {} to the baseline {}",
            if n == 1 {
                "1 finding".to_string()
            } else {
                format!("{n} findings")
            },
            file.display()
        );
        // Recording what is there is not failing on it; only a program fib
        // could not check still fails.
        return Ok(if report.exit_code() == 2 { 2 } else { 0 });
    }
    Ok(report.exit_code())
}
