//! The Umpire-style corpus: small MPI C programs, one scenario each, whose
//! expected verdict is written in their first line:
//!
//! ```c
//! /* fib-test: nprocs=N outcome=ok|deadlock|crash interleavings=K codes=C1,C2|- [flags=--zero-buffer] */
//! ```
//!
//! `codes` is the exact set of finding codes the report must hold (`-` for
//! none), so a program that should be clean also proves that fib does not
//! warn about it. An optional `at=CODE:LINE[,CODE:LINE...]` names the line
//! of the program at which a finding of that code must be placed. An
//! optional `copied=yes|no` says whether the check must have sent standard
//! sends from fib's copies (`"sends_copied"`: some interleaving needed MPI
//! to buffer a message it holds until its receive is posted). An optional
//! `probes=K` says how many probe runs tried the other orders of rows of
//! wildcard receives whose sites nothing vouched for (`"timing"`'s
//! `"probe_runs"`; see `fib_analysis::orders`).
//!
//! Every program is checked with the real `fib` binary
//! (`fib check FILE -n N --format json [flags]`) and the JSON report is
//! compared with the header: outcome, number of interleavings, number of
//! ranks and exit code (0 for `ok`, 1 otherwise, and 1 for an `ok` program
//! with a warning or an error finding). A deadlock must come with a
//! `FIB001` finding (or `FIB009`, the collective-mismatch form of a deadlock,
//! or `FIB010`, its form with a rank that polls) whose line points into the program; a crash must come with a finding that
//! names the rank; `--zero-buffer` must show as `"buffering": "zero"`.
//!
//! All programs run (two at a time by default: the machine has two cores)
//! and every mismatch is reported at the end in one panic message.
//!
//! Environment knobs, for working on one scenario at a time:
//! - `FIB_UMPIRE_ONLY=substr[,substr...]`: run only the programs whose file
//!   name contains one of the substrings;
//! - `FIB_UMPIRE_RECORDED=substr[,substr...]` (or `all`): the programs
//!   `umpire_corpus_recorded` checks in recorded runs (default: those of
//!   wildcard receives, barriers, `MPI_Waitany`, `MPI_Waitsome`, wildcard
//!   probes, `MPI_Ibarrier`, `MPI_Ibcast`, `MPI_Iallreduce`, split, dup'ed,
//!   Cartesian and intercommunicators, cancels, matched probes,
//!   `MPI_Comm_idup`, windows, and large messages, whose standard sends a
//!   run may have to copy);
//! - `FIB_UMPIRE_JOBS=n`: how many programs to check at once (default 2);
//! - `FIB_UMPIRE_TIMEOUT=secs`: per-program limit (default 300).

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

const HEADER_PREFIX: &str = "/* fib-test:";

/// Finding codes that report a deadlock: FIB001 (no match set can fire),
/// FIB009 (ranks of one communicator called different collectives, which the
/// driver reports instead of FIB001 for that kind of deadlock) and FIB010
/// (a livelock: the same with a rank that polls for ever).
const DEADLOCK_CODES: &[&str] = &["FIB001", "FIB009", "FIB010"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    Deadlock,
    Crash,
}

impl Outcome {
    fn parse(s: &str) -> Option<Outcome> {
        match s {
            "ok" => Some(Outcome::Ok),
            "deadlock" => Some(Outcome::Deadlock),
            "crash" => Some(Outcome::Crash),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Deadlock => "deadlock",
            Outcome::Crash => "crash",
        }
    }

    fn exit_code(self) -> i32 {
        match self {
            Outcome::Ok => 0,
            Outcome::Deadlock | Outcome::Crash => 1,
        }
    }
}

#[derive(Debug, Clone)]
struct Expect {
    nprocs: u64,
    outcome: Outcome,
    interleavings: u64,
    codes: Vec<String>,
    flags: Vec<String>,
    /// Codes and the program lines their findings must be placed at.
    at: Vec<(String, u64)>,
    /// Whether the report must say that sends were copied.
    copied: Option<bool>,
    /// How many probe runs tried the orders of rows of wildcard receives
    /// (`timing.probe_runs`), when the header says.
    probes: Option<u64>,
}

#[derive(Debug, Clone)]
struct Program {
    path: PathBuf,
    name: String,
    lines: usize,
    expect: Expect,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("umpire")
}

/// Every `*.c` file of the corpus, sorted by name: those of `tests/umpire`,
/// then those of `tests/umpire/threads`, the hybrid programs, which its
/// `fib.toml` builds with OpenMP.
fn corpus_files() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in [corpus_dir(), corpus_dir().join("threads")] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|entry| entry.expect("directory entry").path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|ext| ext == "c"))
            .collect();
        files.sort();
        all.extend(files);
    }
    all
}

/// Parses the `fib-test:` header on the first line of a program.
fn parse_header(text: &str) -> Result<Expect, String> {
    let first = text.lines().next().ok_or("empty file")?.trim();
    let body = first
        .strip_prefix(HEADER_PREFIX)
        .and_then(|rest| rest.strip_suffix("*/"))
        .ok_or_else(|| format!("first line is not a `{HEADER_PREFIX} ... */` header: {first:?}"))?;
    let (mut nprocs, mut outcome, mut interleavings, mut codes, mut flags) =
        (None, None, None, None, Vec::new());
    let mut at = Vec::new();
    let mut copied = None;
    let mut probes = None;
    for token in body.split_whitespace() {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| format!("header token {token:?} is not key=value"))?;
        match key {
            "nprocs" => {
                let n: u64 = value.parse().map_err(|_| format!("bad nprocs {value:?}"))?;
                if !(2..=4).contains(&n) {
                    return Err(format!("nprocs={n} is outside 2..=4"));
                }
                nprocs = Some(n);
            }
            "outcome" => {
                outcome =
                    Some(Outcome::parse(value).ok_or_else(|| format!("bad outcome {value:?}"))?)
            }
            "interleavings" => {
                let k: u64 = value
                    .parse()
                    .map_err(|_| format!("bad interleavings {value:?}"))?;
                if k == 0 {
                    return Err("interleavings=0".into());
                }
                interleavings = Some(k);
            }
            "codes" => {
                let mut set: Vec<String> = value
                    .split(',')
                    .filter(|c| !c.is_empty() && *c != "-")
                    .map(String::from)
                    .collect();
                set.sort();
                codes = Some(set);
            }
            "at" => {
                for place in value.split(',') {
                    let (code, line) = place
                        .split_once(':')
                        .ok_or_else(|| format!("at={place:?} is not CODE:LINE"))?;
                    let line: u64 = line
                        .parse()
                        .map_err(|_| format!("bad line in at={place:?}"))?;
                    at.push((code.to_string(), line));
                }
            }
            "copied" => {
                copied = Some(match value {
                    "yes" => true,
                    "no" => false,
                    _ => return Err(format!("bad copied {value:?}")),
                })
            }
            "probes" => probes = Some(value.parse().map_err(|_| format!("bad probes {value:?}"))?),
            "flags" => flags.extend(value.split(',').filter(|f| !f.is_empty()).map(String::from)),
            other => return Err(format!("unknown header key {other:?}")),
        }
    }
    Ok(Expect {
        nprocs: nprocs.ok_or("header lacks nprocs=")?,
        outcome: outcome.ok_or("header lacks outcome=")?,
        interleavings: interleavings.ok_or("header lacks interleavings=")?,
        codes: codes.ok_or("header lacks codes=")?,
        flags,
        at,
        copied,
        probes,
    })
}

fn load_program(path: &Path) -> Result<Program, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let expect = parse_header(&text)?;
    Ok(Program {
        path: path.to_path_buf(),
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        lines: text.lines().count(),
        expect,
    })
}

fn load_corpus() -> (Vec<Program>, Vec<String>) {
    let mut programs = Vec::new();
    let mut errors = Vec::new();
    for path in corpus_files() {
        match load_program(&path) {
            Ok(p) => programs.push(p),
            Err(e) => errors.push(format!("{}: {e}", path.display())),
        }
    }
    (programs, errors)
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

struct RunOutput {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

/// Runs `fib check` on one program under the MPI implementation `mpi`,
/// with a time limit.
fn run_fib(
    program: &Program,
    mpi: &str,
    timeout: Duration,
    recorded: bool,
) -> Result<RunOutput, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fib"));
    cmd.arg("check");
    if recorded {
        cmd.args(["--mode", "recorded"]);
    }
    cmd.arg(&program.path)
        .arg("--mpi")
        .arg(mpi)
        .arg("-n")
        .arg(program.expect.nprocs.to_string())
        .arg("--format")
        .arg("json")
        .args(&program.expect.flags)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot start fib: {e}"))?;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > timeout => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for fib: {e}")),
        }
    };
    Ok(RunOutput {
        code: status.and_then(|s| s.code()),
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
        timed_out,
    })
}

fn tail(s: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let from = lines.len().saturating_sub(max_lines);
    lines[from..].join("\n")
}

fn file_matches(reported: &str, program: &Program) -> bool {
    Path::new(reported)
        .file_name()
        .is_some_and(|n| n.to_string_lossy() == program.name)
}

/// Checks one program; returns the list of mismatches (empty when it passes).
/// A `recorded` check (`--mode recorded`) must give the same outcome,
/// findings and verdicts; its interleavings, probe runs and copies are its
/// own.
fn check_program(program: &Program, mpi: &str, timeout: Duration, recorded: bool) -> Vec<String> {
    let exp = &program.expect;
    let mut problems = Vec::new();
    let run = match run_fib(program, mpi, timeout, recorded) {
        Ok(run) => run,
        Err(e) => return vec![e],
    };
    if run.timed_out {
        return vec![format!(
            "fib did not finish within {}s; stderr:\n{}",
            timeout.as_secs(),
            tail(&run.stderr, 15)
        )];
    }
    let report: Value = match serde_json::from_str(&run.stdout) {
        Ok(v) => v,
        Err(e) => {
            return vec![format!(
                "stdout is not JSON ({e}); exit code {:?}; stdout:\n{}\nstderr:\n{}",
                run.code,
                tail(&run.stdout, 10),
                tail(&run.stderr, 15)
            )]
        }
    };
    let Some(prog) = report.get("programs").and_then(|p| p.get(0)) else {
        return vec![format!(
            "report has no programs[0]: {}",
            tail(&run.stdout, 10)
        )];
    };

    let outcome = prog
        .get("outcome")
        .and_then(Value::as_str)
        .unwrap_or("<missing>");
    if outcome != exp.outcome.as_str() {
        problems.push(format!(
            "outcome: expected {}, got {outcome}",
            exp.outcome.as_str()
        ));
    }
    if let Some(want) = exp.copied.filter(|_| !recorded) {
        let got = prog
            .get("sends_copied")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if got != want {
            problems.push(format!("sends_copied: expected {want}, got {got}"));
        }
    }
    let interleavings = prog.get("interleavings").and_then(Value::as_u64);
    if interleavings != Some(exp.interleavings) && !recorded {
        problems.push(format!(
            "interleavings: expected {}, got {}",
            exp.interleavings,
            interleavings.map_or("<missing>".to_string(), |k| k.to_string())
        ));
    }
    if let Some(want) = exp.probes.filter(|_| !recorded) {
        let got = prog
            .pointer("/timing/probe_runs")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if got != want {
            problems.push(format!("probe runs: expected {want}, got {got}"));
        }
    }
    let nprocs = prog.get("nprocs").and_then(Value::as_u64);
    if nprocs != Some(exp.nprocs) {
        problems.push(format!(
            "nprocs: expected {}, got {}",
            exp.nprocs,
            nprocs.map_or("<missing>".to_string(), |n| n.to_string())
        ));
    }
    let zero_buffer = exp.flags.iter().any(|f| f == "--zero-buffer");
    let buffering = prog
        .get("buffering")
        .and_then(Value::as_str)
        .unwrap_or("<missing>");
    let want_buffering = if zero_buffer { "zero" } else { "buffered" };
    if buffering != want_buffering {
        problems.push(format!(
            "buffering: expected {want_buffering}, got {buffering}"
        ));
    }
    // An ok program still exits with 1 when fib warns about something (an
    // irrelevant barrier, say) or reports an error its runs did not end on
    // (a buffer whose type does not match its datatype, found before
    // running).
    let warns = prog["findings"].as_array().is_some_and(|f| {
        f.iter()
            .any(|f| f["severity"] == "warning" || f["severity"] == "error")
    });
    let want_code = if warns { 1 } else { exp.outcome.exit_code() };
    if run.code != Some(want_code) {
        problems.push(format!(
            "exit code: expected {want_code}, got {:?}",
            run.code
        ));
    }

    let empty = Vec::new();
    let findings = prog
        .get("findings")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let code_of = |f: &Value| f.get("code").and_then(Value::as_str).map(str::to_owned);
    let mut codes: Vec<String> = findings.iter().filter_map(code_of).collect();
    codes.sort();
    codes.dedup();
    if codes != exp.codes {
        problems.push(format!(
            "finding codes: expected {:?}, got {codes:?}",
            exp.codes
        ));
    }
    for (code, line) in &exp.at {
        let placed = findings.iter().any(|f| {
            code_of(f).as_deref() == Some(code.as_str())
                && f.get("line").and_then(Value::as_u64) == Some(*line)
                && f.get("file")
                    .and_then(Value::as_str)
                    .is_some_and(|file| file_matches(file, program))
        });
        if !placed {
            problems.push(format!("expected a {code} finding at line {line}"));
        }
    }
    // Every finding that names a line of the program names a real one.
    for f in findings {
        let line = f.get("line").and_then(Value::as_u64);
        let in_file = f
            .get("file")
            .and_then(Value::as_str)
            .is_some_and(|file| file_matches(file, program));
        if in_file && !line.is_some_and(|l| l >= 1 && l as usize <= program.lines) {
            problems.push(format!("finding {f} has a line outside the program"));
        }
    }
    match exp.outcome {
        Outcome::Deadlock => {
            let located = findings.iter().any(|f| {
                let in_file = match f.get("file").and_then(Value::as_str) {
                    Some(file) => file_matches(file, program),
                    None => true,
                };
                let line_ok = f
                    .get("line")
                    .and_then(Value::as_u64)
                    .is_some_and(|l| l >= 1 && l as usize <= program.lines);
                code_of(f).is_some_and(|c| DEADLOCK_CODES.contains(&c.as_str()))
                    && in_file
                    && line_ok
            });
            if !located {
                let codes: Vec<String> = findings.iter().filter_map(code_of).collect();
                problems.push(format!(
                    "deadlock: expected a {} finding with a line in 1..={} of {}, findings have codes {codes:?}",
                    DEADLOCK_CODES.join("/"),
                    program.lines,
                    program.name
                ));
            }
        }
        Outcome::Crash => {
            let with_rank = findings
                .iter()
                .any(|f| f.get("rank").and_then(Value::as_u64).is_some());
            if !with_rank {
                problems.push(format!(
                    "crash: expected a finding that names the rank, got {} finding(s) without one",
                    findings.len()
                ));
            }
        }
        Outcome::Ok => {
            if findings
                .iter()
                .any(|f| code_of(f).is_some_and(|c| DEADLOCK_CODES.contains(&c.as_str())))
            {
                problems.push("ok: the report has a deadlock finding".into());
            }
        }
    }
    if !problems.is_empty() && !run.stderr.trim().is_empty() {
        problems.push(format!("stderr (last lines):\n{}", tail(&run.stderr, 10)));
    }
    problems
}

/// One checked program: its name, what its header expects, and the mismatches.
type Checked = (String, Expect, Vec<String>);

#[test]
fn corpus_has_at_least_40_programs() {
    let (programs, errors) = load_corpus();
    assert!(
        errors.is_empty(),
        "malformed corpus headers:\n{}",
        errors.join("\n")
    );
    assert!(
        programs.len() >= 40,
        "the corpus in {} has only {} programs",
        corpus_dir().display(),
        programs.len()
    );
    for outcome in [Outcome::Ok, Outcome::Deadlock, Outcome::Crash] {
        assert!(
            programs.iter().any(|p| p.expect.outcome == outcome),
            "no program expects outcome={}",
            outcome.as_str()
        );
    }
}

/// The corpus under MPICH.
#[test]
fn umpire_corpus_mpich() {
    corpus_under("mpich", false);
}

/// The same corpus, with the same expectations, under Open MPI.
#[test]
fn umpire_corpus_openmpi() {
    corpus_under("openmpi", false);
}

/// The corpus's programs of wildcard receives, barriers, `MPI_Waitany`,
/// `MPI_Waitsome`, wildcard probes, some nonblocking collectives,
/// communicator constructors (`MPI_Comm_idup` too), cancels, matched
/// probes, tests and windows in recorded runs (`--mode recorded`, under MPICH): the same
/// outcomes, findings and verdicts as scheduled ones (`FIB_UMPIRE_RECORDED` lists which, as
/// `FIB_UMPIRE_ONLY` does; `all` for every program). A program with a call
/// a recorded run cannot follow is checked scheduled, and must pass too.
#[test]
fn umpire_corpus_recorded() {
    corpus_under("mpich", true);
}

/// One implementation's run of the corpus at a time: each already keeps
/// both cores busy.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Checks every corpus program under the MPI implementation `mpi`.
fn corpus_under(mpi: &'static str, recorded: bool) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (programs, mut failures) = load_corpus();
    let only: Vec<String> = std::env::var("FIB_UMPIRE_ONLY")
        .map(|v| {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let recorded_only: Vec<String> = match std::env::var("FIB_UMPIRE_RECORDED") {
        Ok(v) if v == "all" => Vec::new(),
        Ok(v) => v
            .split(',')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
        Err(_) => [
            "large_",
            "any_src",
            "any_source",
            "wildcard",
            "barrier",
            "waitany",
            "waitsome",
            "probe_any_src",
            "ibarrier",
            "ibcast",
            "iallreduce",
            "split_comm",
            "dup_comm",
            "intercomm",
            "cancel_",
            "mprobe",
            "comm_idup",
            "cart_",
            "test_poll",
            "testa",
            "tests",
            "get_status",
            "iprobe",
            "improbe",
            "rma_",
            "win_",
        ]
        .map(String::from)
        .to_vec(),
    };
    let selected: VecDeque<Program> = programs
        .into_iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| p.name.contains(o.as_str())))
        .filter(|p| {
            !recorded
                || recorded_only.is_empty()
                || recorded_only.iter().any(|o| p.name.contains(o.as_str()))
        })
        .collect();
    let total = selected.len();
    let jobs = env_number("FIB_UMPIRE_JOBS", 2).max(1) as usize;
    let timeout = Duration::from_secs(env_number("FIB_UMPIRE_TIMEOUT", 300));

    let queue = Arc::new(Mutex::new(selected));
    let results: Arc<Mutex<Vec<Checked>>> = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..jobs.min(total.max(1)))
        .map(|_| {
            let queue = Arc::clone(&queue);
            let results = Arc::clone(&results);
            thread::spawn(move || loop {
                let next = queue.lock().unwrap().pop_front();
                let Some(program) = next else { break };
                let problems = check_program(&program, mpi, timeout, recorded);
                results.lock().unwrap().push((
                    program.name.clone(),
                    program.expect.clone(),
                    problems,
                ));
            })
        })
        .collect();
    for worker in workers {
        if worker.join().is_err() {
            failures.push("a worker thread panicked".into());
        }
    }

    let mut results = Arc::try_unwrap(results).ok().unwrap().into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut failed = 0;
    for (name, exp, problems) in &results {
        if problems.is_empty() {
            continue;
        }
        failed += 1;
        let mut msg = format!(
            "{name} (expected outcome={} interleavings={} nprocs={}{}):",
            exp.outcome.as_str(),
            exp.interleavings,
            exp.nprocs,
            if exp.flags.is_empty() {
                String::new()
            } else {
                format!(" flags={}", exp.flags.join(","))
            }
        );
        for p in problems {
            let _ = write!(msg, "\n    {}", p.replace('\n', "\n      "));
        }
        failures.push(msg);
    }
    assert!(
        failures.is_empty(),
        "{failed} of {total} corpus programs failed under {mpi}{}:\n\n{}",
        if recorded { ", recorded" } else { "" },
        failures.join("\n\n")
    );
    let how = if recorded { ", recorded" } else { "" };
    eprintln!("umpire corpus under {mpi}{how}: {total} programs passed");
}
