//! The `fib` command line: parses arguments, runs the driver on each program
//! and prints the report. All the work is in the library crates.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use fib_driver::{settings, Phase, Progress, Status};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

mod prebuilt;

/// The scheduler keeps every call of a run (tens of MB for a call-heavy
/// one): mimalloc hands those pages out in large runs, where the system
/// allocator copies what it grows (docs/src/benchmarks.md has the
/// figures). It is built without asking for transparent huge pages
/// (`no_thp`): a huge page is zeroed whole on first touch, which doubled
/// what a run's record made resident and was the slowest part of its page
/// faults.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "fib",
    version,
    about = "Verifies MPI programs: deadlocks, crashes, and which barriers they can do without",
    after_help = "Exit codes: 0 nothing found, 1 something found, 2 fib could not check a program, 130 interrupted (Ctrl-C)."
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
    /// Check a program fib did not build: `fib run -n 2 -- ./a.out ARGS`.
    ///
    /// Run it under the POE scheduler over every relevant interleaving and
    /// report what can go wrong, placing calls by return address (source
    /// lines when it was built with -g).
    Run(Box<prebuilt::RunArgs>),
    /// Print the documentation of a finding code (e.g. `fib explain FIB001`).
    Explain { code: String },
    /// Show what fib found on this machine (MPI implementations, their
    /// interposition libraries, libclang, the cache) and what is missing.
    Doctor,
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

/// How a program is explored: the options `fib check` and `fib run` share.
/// Their defaults are the driver's ([`fib_driver::settings`]).
#[derive(Args)]
struct ExploreArgs {
    /// Make every standard send synchronous, to find deadlocks that depend
    /// on MPI buffering.
    #[arg(long)]
    zero_buffer: bool,
    // Time limit of one interleaving.
    #[arg(long, help = format!(
        "Time limit of one interleaving, in seconds [default: {}]",
        settings::DEFAULT_TIMEOUT.as_secs()
    ))]
    timeout: Option<f64>,
    /// Run only the interleaving this token names (as printed with a finding).
    #[arg(long)]
    replay: Option<String>,
    // Stop after exploring this many interleavings.
    #[arg(long, help = format!(
        "Stop after exploring this many interleavings [default: {}]",
        settings::DEFAULT_MAX_INTERLEAVINGS
    ))]
    max_interleavings: Option<usize>,
    /// Run up to this many interleavings at once; the results are those of
    /// one at a time [default: the number of cores].
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: Option<u64>,
    /// Prove every barrier verdict by removal: re-explore the program with
    /// each barrier group deleted and compare what its messages can do.
    #[arg(long)]
    confirm: bool,
    /// Where the runs write: `scratch` (each run in a directory of its own
    /// in which the program finds the files of its working directory; the
    /// first run's files are kept, and the report says where) or `source`
    /// (in the working directory itself). Default: `run_in` in fib.toml,
    /// else scratch.
    #[arg(long, value_name = "WHERE", value_parser = ["scratch", "source"])]
    run_in: Option<String>,
    /// Launch the ranks with this command instead of `mpiexec -n N` (the
    /// help text is [`launcher_help`]'s).
    #[arg(long, value_name = "COMMAND", help = launcher_help())]
    launcher: Option<String>,
    /// How the runs go: `scheduled` (every call through fib's scheduler,
    /// which decides every choice) or `recorded` (every call straight to
    /// MPI, the ranks never waiting for fib, each run read back afterwards
    /// and only the receives of its plan forced). Default: `mode` in
    /// fib.toml, else scheduled.
    #[arg(long, value_name = "MODE", value_parser = ["scheduled", "recorded"])]
    mode: Option<String>,
}

impl ExploreArgs {
    /// The launch command, when `--launcher` gives one.
    fn launcher(&self) -> Result<Option<settings::Launcher>> {
        self.launcher
            .as_deref()
            .map(|l| settings::Launcher::parse(l).map_err(|m| anyhow::anyhow!("--launcher {m}")))
            .transpose()
    }

    /// How the runs go, when `--mode` says.
    fn mode(&self) -> Option<settings::Mode> {
        self.mode
            .as_deref()
            .and_then(|m| settings::Mode::parse(m).ok())
    }

    /// Where the runs write, when `--run-in` says.
    fn run_in(&self) -> Option<settings::RunIn> {
        self.run_in
            .as_deref()
            .and_then(|w| settings::RunIn::parse(w).ok())
    }

    /// The time limit, when given: a positive number of seconds.
    fn timeout(&self) -> Result<Option<Duration>> {
        match self.timeout {
            Some(t) if t.is_nan() || t <= 0.0 => {
                bail!("--timeout must be a positive number of seconds")
            }
            t => Ok(t.map(Duration::from_secs_f64)),
        }
    }

    /// The interleaving `--replay` names, when given.
    fn replay(&self) -> Result<Option<poe::Token>> {
        match &self.replay {
            Some(t) => Ok(Some(t.parse::<poe::Token>().map_err(anyhow::Error::msg)?)),
            None => Ok(None),
        }
    }
}

/// Where and how the report goes: the options `fib check` and `fib run`
/// share.
#[derive(Args)]
struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Colour the human output: auto, always or never.
    #[arg(long, default_value = "auto")]
    color: String,
    /// Show no progress line on standard error (there is none when standard
    /// error is not a terminal).
    #[arg(long)]
    no_progress: bool,
}

impl OutputArgs {
    /// The progress line, unless `--no-progress` or standard error is no
    /// terminal.
    fn line(&self) -> Option<Line> {
        (!self.no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(Line::new)
    }

    /// Writes `report` as these options say.
    fn write(&self, report: &fib_report::Report) -> Result<()> {
        write_report(report, self.format, &self.color, self.output.as_deref())
    }
}

#[derive(Parser)]
struct CheckArgs {
    /// C/C++ source files or directories. A directory's programs (each
    /// source that defines main, with the other sources of its directory)
    /// are all checked; a file's program once, however often it is named.
    /// With --build: the directory the build command runs in [default: .].
    #[arg(required_unless_present = "build", num_args = 1..)]
    paths: Vec<PathBuf>,
    /// Run this build command (with `sh -c`, e.g. "make -j2") with fib's
    /// compiler wrappers, and check the programs it links, each made of
    /// the sources and flags the build used.
    #[arg(long, value_name = "CMD")]
    build: Option<String>,
    // Number of MPI processes, or several.
    #[arg(short = 'n', long = "nprocs", value_delimiter = ',', help = format!(
        "Number of MPI processes, or several (`-n 2,4,8`: each program is checked at each). \
         Default: `fib.toml`, a program's `fib: -n N` comment, else {}.",
        settings::DEFAULT_NPROCS
    ))]
    nprocs: Vec<usize>,
    #[command(flatten)]
    explore: ExploreArgs,
    #[command(flatten)]
    out: OutputArgs,
    /// Run every order of wildcard receives, wildcard probes and
    /// MPI_Waitany calls that one run could stand for (by default, when the
    /// program's MPI calls do not depend on what it receives, one run
    /// stands for every order in which a rank's run of identical wildcard
    /// receives, or of wildcard probes each followed by the receive of
    /// what it found, takes its senders' messages, and when they do not
    /// depend on what a row of MPI_Waitany returns, for every order in
    /// which it takes its requests).
    #[arg(long)]
    exhaustive: bool,
    /// Run a program that calls MPI functions fib does not model anyway
    /// (they are still reported as FIB006); by default it is not run.
    #[arg(long)]
    run_unsupported: bool,
    /// Fail only on findings this baseline file (from --write-baseline)
    /// does not list; the known ones are left out of the report.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    baseline: Option<PathBuf>,
    /// Write the findings (after waivers) to FILE as a baseline, and exit
    /// 0 unless a program could not be checked.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// The directory the program runs in [default: the directory of its
    /// main source; with --build, the directory the build ran in].
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The MPI implementation to run under: mpich or openmpi. Default:
    /// `mpi` in fib.toml, else the one installed (MPICH when both are).
    #[arg(long, value_name = "MPI")]
    mpi: Option<String>,
    /// Arguments for the program.
    #[arg(last = true)]
    args: Vec<String>,
}

fn main() {
    // Before any thread starts: it sets an environment variable.
    instrument::point_at_libclang();
    // A compiler wrapper of `fib check --build`: no parsing, no report.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|a| a == fib_driver::WRAP_SUBCOMMAND)
    {
        std::process::exit(fib_driver::wrap_main(&args[2..]).clamp(0, 255));
    }
    let code = match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fib: error: {e:#}");
            2
        }
    };
    // Everything is said and every run's files are gone. Leaving through
    // `exit` would have the allocator hand a call-heavy check's hundred
    // megabytes back to the system page by page (4 ms after the 200 000
    // calls of the ping-pong benchmark): the process ends at once instead.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` is always safe to call; nothing is left to run.
    unsafe { libc::_exit(code) }
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
        Command::Run(args) => prebuilt::run_prebuilt(*args),
        Command::Doctor => {
            let (text, ok) = doctor();
            print_out(&text);
            Ok(if ok { 0 } else { 1 })
        }
    }
}

/// Writes to stdout; a closed pipe (`fib ... | head`) is not an error.
fn print_out(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// `fib doctor`: what fib needs, found or not, and whether it can check
/// programs here (some MPI implementation and libclang).
fn doctor() -> (String, bool) {
    use fib_driver::toolchain::{Libraries, Mpi, Source};
    let mut out = format!(
        "fib {}\n\nMPI implementations:\n",
        env!("CARGO_PKG_VERSION")
    );
    let libraries = Libraries::from_env();
    let default = Mpi::detect().ok();
    let mut missing = Vec::new();
    for mpi in Mpi::ALL {
        if !mpi.installed() {
            out += &format!(
                "  {:<9} not installed ({} and {} are not on PATH)\n",
                mpi.name(),
                mpi.mpicc(),
                mpi.mpiexec()
            );
            missing.push(format!("{mpi}: apt-get install {}", mpi.packages()));
            continue;
        }
        let version = mpi.version().unwrap_or_else(|| "(version unknown)".into());
        let chosen = if default == Some(mpi) {
            "  (default)"
        } else {
            ""
        };
        out += &format!(
            "  {:<9} {version}: {}, {}{chosen}\n",
            mpi.name(),
            mpi.mpicc(),
            mpi.mpiexec()
        );
        let lib = match libraries.source(mpi) {
            Ok(Source::Explicit(p)) => format!("{} (FIB_INTERPOSE_LIB)", p.display()),
            Ok(Source::Beside(p)) => format!("{} (beside fib)", p.display()),
            Ok(Source::Cached(p)) => format!("{} (built in the cache)", p.display()),
            Ok(Source::ToBuild(p)) => format!(
                "not built yet; the first check under {mpi} builds it (with cargo) into {}",
                p.parent().unwrap_or(&p).display()
            ),
            Err(e) => {
                missing.push(format!("{mpi}'s interposition library: {e}"));
                format!("unusable: {e}")
            }
        };
        out += &format!("            interposition library: {lib}\n");
    }
    out += "\nlibclang: ";
    match instrument::libclang_version() {
        Ok(v) => out += &format!("{v}\n"),
        Err(e) => {
            out += &format!("not usable: {e}\n");
            missing.push("libclang: apt-get install libclang-14-dev".into());
        }
    }
    out += &format!(
        "cache:    {}\n",
        fib_driver::settings::cache_dir().display()
    );
    let usable = default.is_some() && !missing.iter().any(|m| m.starts_with("libclang"));
    if missing.is_empty() {
        out += "\nNothing is missing.\n";
    } else {
        out += "\nMissing:\n";
        for m in &missing {
            out += &format!("  {m}\n");
        }
    }
    out += if usable {
        "fib can check programs here.\n"
    } else {
        "fib cannot check programs here until the above is installed.\n"
    };
    (out, usable)
}

fn check(args: CheckArgs) -> Result<i32> {
    if args.nprocs.contains(&0) {
        bail!("-n must be at least 1");
    }
    let timeout = args.explore.timeout()?;
    if let Some(d) = &args.cwd {
        if !d.is_dir() {
            bail!("--cwd {}: no such directory", d.display());
        }
    }
    for path in &args.paths {
        if !path.exists() {
            bail!("{}: no such file or directory", path.display());
        }
    }
    let replay = args.explore.replay()?;
    // Read before the check, so that a bad file stops fib at once.
    let baseline = match &args.baseline {
        Some(file) => Some(fib_driver::read_baseline(file)?),
        None => None,
    };
    let request = fib_driver::Request {
        paths: args.paths.clone(),
        nprocs: args.nprocs.clone(),
        zero_buffer: args.explore.zero_buffer,
        timeout,
        replay,
        max_interleavings: args.explore.max_interleavings,
        jobs: args.explore.jobs.map(|j| j as usize),
        exhaustive: args.exhaustive,
        mpi: args.mpi.as_deref().map(parse_mpi).transpose()?,
        cwd: args.cwd.clone(),
        args: (!args.args.is_empty()).then(|| args.args.clone()),
        confirm: args.explore.confirm,
        run_unsupported: args.run_unsupported,
        build: args.build.clone(),
        run_in: args.explore.run_in(),
        launcher: args.explore.launcher()?,
        mode: args.explore.mode(),
    };
    let line = args.out.line();
    let bar = line.as_ref().map(|l| l.bar.clone());
    prebuilt::install_interrupts(bar)?;

    let checked = match &line {
        Some(line) => fib_driver::check_paths(&request, line),
        None => fib_driver::check_paths(&request, &Quiet),
    };
    if let Some(line) = &line {
        line.bar.finish_and_clear();
    }
    if checked.is_err() && fib_driver::interrupted() {
        // What failed was cut short by the interrupt; it says nothing.
        eprintln!("fib: interrupted");
        return Ok(130);
    }
    let shown: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    let fib_driver::Checked {
        mut report, notes, ..
    } = checked.with_context(|| match &args.build {
        Some(_) if shown.is_empty() => "checking what the build in . makes".to_string(),
        Some(_) => format!("checking what the build in {} makes", shown.join(" ")),
        None => format!("checking {}", shown.join(" ")),
    })?;
    if report.interrupted {
        eprintln!("fib: interrupted; the report holds what was found before");
    }
    for note in notes {
        eprintln!("fib: {note}");
    }
    if let (Some(b), Some(file)) = (&baseline, &args.baseline) {
        fib_driver::apply_baseline(b, file, &mut report);
    }
    args.out.write(&report)?;
    if let Some(file) = &args.write_baseline {
        if report.interrupted {
            eprintln!(
                "fib: the baseline {} was not written: an interrupted check does not show every finding",
                file.display()
            );
            return Ok(report.exit_code());
        }
        let n = fib_driver::write_baseline(file, &report)?;
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

/// The progress line on standard error: the program being checked, its
/// phase, interleavings done and known to be left, and the time spent on
/// the program so far.
struct Line {
    bar: ProgressBar,
    /// The program (and process count) the line speaks of, to restart the
    /// clock when the next one starts.
    current: Mutex<Option<(String, usize)>>,
}

impl Line {
    fn new() -> Line {
        let target = ProgressDrawTarget::term_like(Box::new(Margin(console::Term::stderr())));
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {wide_msg} {elapsed:>4}")
                .expect("a valid progress template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        Line {
            bar,
            current: Mutex::new(None),
        }
    }
}

/// Standard error, a few columns narrower than it is: the line then leaves
/// room at its end for the `^C` the terminal echoes, which would otherwise
/// wrap and leave the line behind when it is cleared.
#[derive(Debug)]
struct Margin(console::Term);

impl TermLike for Margin {
    fn width(&self) -> u16 {
        self.0.size().1.saturating_sub(4).max(20)
    }
    fn height(&self) -> u16 {
        self.0.size().0
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_up(n)
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_down(n)
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_right(n)
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_left(n)
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.0.write_line(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.0.write_str(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.0.clear_line()
    }
    fn flush(&self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Renders `report` in `format` (human colour as `color` says: auto,
/// always or never) and writes it to `output`, else standard output.
pub(crate) fn write_report(
    report: &fib_report::Report,
    format: Format,
    color: &str,
    output: Option<&std::path::Path>,
) -> Result<()> {
    let mut text = match format {
        Format::Json => fib_report::emit::json::render(report),
        Format::Sarif => fib_report::emit::sarif::render_with_sources(report, &mut read_source),
        Format::Github => fib_report::emit::github::render_with_sources(report, &mut read_source),
        Format::Html => fib_report::emit::html::render_with_sources(report, &mut read_source),
        Format::Human => {
            let color = match color {
                "always" => true,
                "never" => false,
                // A file is not a terminal.
                _ if output.is_some() => false,
                _ => std::io::IsTerminal::is_terminal(&std::io::stdout()),
            };
            fib_report::emit::human::render_with_sources(report, color, &mut read_source)
        }
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match output {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("writing the report to {}", path.display()))?,
        None => print_out(&text),
    }
    Ok(())
}

/// The text of the source file at `path` (relative to the current
/// directory, as the findings name files), or `None` when it cannot be
/// read: how the report formats get the source lines they show.
fn read_source(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// No progress line: only the notes, on standard error.
pub(crate) struct Quiet;

impl Progress for Quiet {
    fn update(&self, _: &Status) {}
    fn note(&self, message: &str) {
        eprintln!("fib: {message}");
    }
}

/// An MPI implementation named on the command line.
pub(crate) fn parse_mpi(name: &str) -> Result<fib_driver::toolchain::Mpi> {
    fib_driver::toolchain::Mpi::parse(name)
        .with_context(|| format!("--mpi {name}: fib knows mpich and openmpi"))
}

impl Progress for Line {
    fn note(&self, message: &str) {
        self.bar.suspend(|| eprintln!("fib: {message}"));
    }
    fn update(&self, status: &Status) {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let key = (status.program.clone(), status.nprocs);
        if current.as_ref() != Some(&key) {
            self.bar.reset_elapsed();
            *current = Some(key);
        }
        self.bar.set_message(describe(status));
    }
}

/// The text of the progress line (without the spinner and the clock):
/// `a.c (4 ranks): exploring, 12 interleavings done, 30 known pending`.
fn describe(status: &Status) -> String {
    let ranks = if status.nprocs == 1 { "rank" } else { "ranks" };
    let mut line = format!("{} ({} {ranks}): ", status.program, status.nprocs);
    match status.phase {
        Phase::Building => {
            line.push_str("building");
            return line;
        }
        Phase::Exploring => line.push_str("exploring"),
        Phase::Confirming { group, groups } => {
            line.push_str(&format!("confirming group {group} of {groups}"))
        }
    }
    let done = status.done;
    line.push_str(&format!(
        ", {done} interleaving{} done",
        if done == 1 { "" } else { "s" }
    ));
    if let Some(p) = status.pending {
        line.push_str(&format!(", {p} known pending"));
    }
    line
}

/// The help of `--launcher`. clap turns every `{n}` of a help text into a
/// line break, and the launcher's placeholder is `{n}`: each one is written
/// with an ANSI reset after its brace, which a terminal does not show and
/// the plain output drops, so that the text keeps the braces.
fn launcher_help() -> clap::builder::StyledStr {
    let n = "{\x1b[0mn}";
    format!(
        "Launch the ranks with this command instead of `mpiexec -n N`, `{n}` standing for the process count: `srun -n {n}`, `mpiexec.mpich -f hosts -n {n}`, `mpirun --hostfile hosts -np {n}`. The ranks reach fib over TCP (at `FIB_HOST` when set) and run in the working directory. Default: `launcher` in fib.toml"
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(phase: Phase, done: usize, pending: Option<usize>) -> Status {
        Status {
            program: "tests/a.c".into(),
            nprocs: 4,
            phase,
            done,
            pending,
        }
    }

    #[test]
    fn the_line_names_the_program_its_phase_and_the_interleavings() {
        assert_eq!(
            describe(&status(Phase::Building, 0, None)),
            "tests/a.c (4 ranks): building"
        );
        assert_eq!(
            describe(&status(Phase::Exploring, 1, Some(30))),
            "tests/a.c (4 ranks): exploring, 1 interleaving done, 30 known pending"
        );
        assert_eq!(
            describe(&status(
                Phase::Confirming {
                    group: 2,
                    groups: 3
                },
                12,
                None
            )),
            "tests/a.c (4 ranks): confirming group 2 of 3, 12 interleavings done"
        );
    }

    #[test]
    fn a_hidden_line_takes_updates_and_restarts_its_clock_per_program() {
        let line = Line {
            bar: ProgressBar::hidden(),
            current: Mutex::new(None),
        };
        line.update(&status(Phase::Exploring, 3, Some(2)));
        assert_eq!(
            line.bar.message(),
            "tests/a.c (4 ranks): exploring, 3 interleavings done, 2 known pending"
        );
        let mut other = status(Phase::Building, 0, None);
        other.program = "tests/b.c".into();
        line.update(&other);
        assert_eq!(line.bar.message(), "tests/b.c (4 ranks): building");
        assert_eq!(
            line.current.lock().unwrap().clone(),
            Some(("tests/b.c".to_string(), 4))
        );
    }
}
