//! Rows of wildcard receives, probes and `MPI_Waitany` whose statuses,
//! indices and data only steer memory, files and output (one run for every
//! order), dispatch loops, and near-misses whose order does matter. Each
//! program's first lines state what a check gives with and without
//! `--exhaustive`:
//!
//! ```text
//! /* fib-choices: nprocs=N outcome=ok|deadlock|crash interleavings=K exhaustive=E [steering=N1,N2] */
//! /*
//!  * barrier L<line>: relevant|irrelevant|not-covered
//! ```
//!
//! `steering=` (for programs whose rows must not reduce) lists lines of
//! the program of which `static.steering`, what kept the rows from one run
//! for every order, must name at least one (as `FILE:LINE`).
//!
//! Every program is checked twice with the real `fib` binary, `fib check
//! FILE -n N --format json` and the same with `--exhaustive`, from a scratch
//! directory (the programs write files into their current directory). Both
//! reports must give the outcome; the first must have run exactly K
//! interleavings and the second exactly E; both must give every barrier
//! line the verdict of the header; and the two must agree on everything
//! that does not depend on how many orders were run: the exit code, the
//! verdict of every barrier group, the findings (code, file and line) and
//! the static facts. (The report does not list the (wildcard receive, send)
//! pairs themselves; the barrier verdicts are made from them.)
//!
//! A second test compiles each program whose outcome is `ok` with
//! `mpicc.mpich` and runs it natively under `mpiexec.mpich -n N`: the
//! programs are correct MPI programs.
//!
//! Environment knobs: `FIB_CHOICES_ONLY=substr[,substr...]` checks only
//! the programs whose file name contains one of the substrings;
//! `FIB_CHOICES_JOBS=n` how many checks run at once (default 2).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use wait_timeout::ChildExt;

const HEADER_PREFIX: &str = "/* fib-choices:";

/// A check that takes longer than this is a failure (the programs are
/// small enough for `--exhaustive` to take seconds).
const TIMEOUT: Duration = Duration::from_secs(240);

#[derive(Debug, Clone)]
struct Expect {
    nprocs: u64,
    outcome: String,
    interleavings: u64,
    exhaustive: u64,
    /// Barrier lines and their verdicts.
    barriers: Vec<(u64, String)>,
    /// Lines one of which `static.steering` must name.
    steering: Vec<u64>,
}

#[derive(Debug, Clone)]
struct Program {
    path: PathBuf,
    name: String,
    expect: Expect,
}

fn parse_header(text: &str) -> Result<Expect, String> {
    let first = text.lines().next().ok_or("empty file")?.trim();
    let body = first
        .strip_prefix(HEADER_PREFIX)
        .and_then(|r| r.strip_suffix("*/"))
        .ok_or_else(|| format!("first line is not a `{HEADER_PREFIX} ... */` header"))?;
    let (mut nprocs, mut outcome, mut interleavings, mut exhaustive) = (None, None, None, None);
    let mut steering = Vec::new();
    for token in body.split_whitespace() {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| format!("header token {token:?} is not key=value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("bad number {value:?} for {key}"))
        };
        match key {
            "nprocs" => nprocs = Some(number()?),
            "interleavings" => interleavings = Some(number()?),
            "exhaustive" => exhaustive = Some(number()?),
            "steering" => {
                for l in value.split(',') {
                    steering.push(l.parse().map_err(|_| format!("bad steering line {l:?}"))?);
                }
            }
            "outcome" => match value {
                "ok" | "deadlock" | "crash" => outcome = Some(value.to_string()),
                _ => return Err(format!("bad outcome {value:?}")),
            },
            other => return Err(format!("unknown header key {other:?}")),
        }
    }
    let mut barriers = Vec::new();
    for l in text
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with(" *") || l.trim() == "/*")
    {
        if let Some(rest) = l.strip_prefix(" * barrier L") {
            let (line, verdict) = rest
                .split_once(':')
                .ok_or_else(|| format!("bad barrier line {l:?}"))?;
            let line = line
                .parse()
                .map_err(|_| format!("bad barrier line number in {l:?}"))?;
            let verdict = verdict.split_whitespace().next().unwrap_or("").to_string();
            if !["relevant", "irrelevant", "not-covered"].contains(&verdict.as_str()) {
                return Err(format!("bad verdict in {l:?}"));
            }
            barriers.push((line, verdict));
        }
    }
    Ok(Expect {
        nprocs: nprocs.ok_or("header lacks nprocs=")?,
        outcome: outcome.ok_or("header lacks outcome=")?,
        interleavings: interleavings.ok_or("header lacks interleavings=")?,
        exhaustive: exhaustive.ok_or("header lacks exhaustive=")?,
        barriers,
        steering,
    })
}

/// Every `*.c` program of the directory (filtered by `FIB_CHOICES_ONLY`),
/// sorted by name.
fn programs() -> Vec<Program> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/choices");
    let only: Vec<String> = std::env::var("FIB_CHOICES_ONLY")
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !only.is_empty() && !only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        match parse_header(&std::fs::read_to_string(&path).unwrap()) {
            Ok(expect) => out.push(Program { path, name, expect }),
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    assert!(bad.is_empty(), "bad headers:\n{}", bad.join("\n"));
    out
}

/// Runs `command` with a time limit; its exit code (None when killed or
/// out of time), stdout and stderr.
fn run_limited(mut command: Command, limit: Duration) -> (Option<i32>, String, String, bool) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let err_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let (code, timed_out) = match child.wait_timeout(limit).unwrap() {
        Some(status) => (status.code(), false),
        None => {
            // SIGTERM first, which fib and mpiexec pass on to what they
            // started, then SIGKILL.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
            if child
                .wait_timeout(Duration::from_secs(10))
                .unwrap()
                .is_none()
            {
                let _ = child.kill();
                let _ = child.wait();
            }
            (None, true)
        }
    };
    (
        code,
        out_reader.join().unwrap_or_default(),
        err_reader.join().unwrap_or_default(),
        timed_out,
    )
}

/// What one check reported, reduced to what the two modes are compared on.
struct Checked {
    code: Option<i32>,
    outcome: String,
    interleavings: u64,
    /// Each barrier group, as its sorted lines, with its verdict.
    groups: BTreeMap<Vec<u64>, String>,
    /// (code, file name, line) of every finding.
    findings: BTreeSet<(String, String, u64)>,
    static_facts: Value,
    seconds: f64,
}

fn base(file: &Value) -> String {
    Path::new(file.as_str().unwrap_or(""))
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn check(program: &Program, exhaustive: bool) -> Result<Checked, String> {
    let scratch = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fib"));
    cmd.arg("check")
        .arg(&program.path)
        .args(["-n", &program.expect.nprocs.to_string(), "--format", "json"])
        .current_dir(scratch.path())
        .env("FIB_CACHE_DIR", scratch.path().join("cache"));
    if exhaustive {
        cmd.arg("--exhaustive");
    }
    let start = Instant::now();
    let (code, stdout, stderr, timed_out) = run_limited(cmd, TIMEOUT);
    let seconds = start.elapsed().as_secs_f64();
    let mode = if exhaustive { " --exhaustive" } else { "" };
    if timed_out {
        return Err(format!(
            "fib check{mode} did not finish within {} s",
            TIMEOUT.as_secs()
        ));
    }
    let report: Value = serde_json::from_str(&stdout).map_err(|e| {
        format!("fib check{mode}: no JSON ({e}), exit code {code:?}; stderr:\n{stderr}")
    })?;
    let p = &report["programs"][0];
    let mut groups = BTreeMap::new();
    for g in p["barriers"].as_array().into_iter().flatten() {
        let mut lines: Vec<u64> = g["group"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["line"].as_u64())
            .collect();
        lines.sort();
        groups.insert(lines, g["verdict"].as_str().unwrap_or("?").to_string());
    }
    let findings = p["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["code"].as_str().unwrap_or("?").to_string(),
                base(&f["file"]),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    Ok(Checked {
        code,
        outcome: p["outcome"].as_str().unwrap_or("?").to_string(),
        interleavings: p["interleavings"].as_u64().unwrap_or(0),
        groups,
        findings,
        static_facts: p["static"].clone(),
        seconds,
    })
}

/// Checks one program in both modes; its mismatches and a line of timing.
fn check_program(program: &Program) -> (Vec<String>, String) {
    let exp = &program.expect;
    let at = format!("{} -n {}", program.name, exp.nprocs);
    let (reduced, full) = match (check(program, false), check(program, true)) {
        (Ok(r), Ok(f)) => (r, f),
        (r, f) => {
            let errors = [r.err(), f.err()].into_iter().flatten();
            return (
                errors.map(|e| format!("{at}: {e}")).collect(),
                String::new(),
            );
        }
    };
    let mut bad = Vec::new();
    for (mode, c, want) in [
        ("", &reduced, exp.interleavings),
        (" --exhaustive", &full, exp.exhaustive),
    ] {
        if c.outcome != exp.outcome {
            bad.push(format!(
                "{at}{mode}: outcome {} (expected {})",
                c.outcome, exp.outcome
            ));
        }
        if c.interleavings != want {
            let why = match (mode, c.static_facts["steering"].as_array()) {
                ("", Some(s)) if !s.is_empty() => {
                    let reasons: Vec<&str> = s.iter().filter_map(Value::as_str).collect();
                    format!("; static.steering: {}", reasons.join("; "))
                }
                _ => String::new(),
            };
            bad.push(format!(
                "{at}{mode}: {} interleavings (expected {want}){why}",
                c.interleavings
            ));
        }
        for (line, verdict) in &exp.barriers {
            match c.groups.iter().find(|(lines, _)| lines.contains(line)) {
                Some((_, v)) if v == verdict => {}
                Some((_, v)) => bad.push(format!(
                    "{at}{mode}: barrier L{line} is {v} (expected {verdict})"
                )),
                None => bad.push(format!("{at}{mode}: no barrier group has line {line}")),
            }
        }
    }
    if !exp.steering.is_empty() {
        let reasons: Vec<&str> = reduced.static_facts["steering"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let named = |l: &u64| {
            let place = format!("{}:{l}", program.name);
            reasons.iter().any(|r| {
                r.match_indices(&place)
                    .any(|(i, _)| !r[i + place.len()..].starts_with(|c: char| c.is_ascii_digit()))
            })
        };
        if !exp.steering.iter().any(named) {
            bad.push(format!(
                "{at}: static.steering names none of lines {:?}: {reasons:?}",
                exp.steering
            ));
        }
    }
    if reduced.code != full.code {
        bad.push(format!(
            "{at}: exit code {:?}, with --exhaustive {:?}",
            reduced.code, full.code
        ));
    }
    if reduced.groups != full.groups {
        bad.push(format!(
            "{at}: barrier verdicts {:?}, with --exhaustive {:?}",
            reduced.groups, full.groups
        ));
    }
    if reduced.findings != full.findings {
        bad.push(format!(
            "{at}: findings {:?}, with --exhaustive {:?}",
            reduced.findings, full.findings
        ));
    }
    if reduced.static_facts != full.static_facts {
        bad.push(format!(
            "{at}: static facts differ with --exhaustive:\n{}\n{}",
            reduced.static_facts, full.static_facts
        ));
    }
    let timing = format!(
        "{at}: {} interleavings in {:.1} s, --exhaustive {} in {:.1} s",
        reduced.interleavings, reduced.seconds, full.interleavings, full.seconds
    );
    (bad, timing)
}

#[test]
fn reduced_and_exhaustive_agree() {
    let queue = Arc::new(Mutex::new(programs().into_iter().collect::<VecDeque<_>>()));
    let count = queue.lock().unwrap().len();
    let jobs = std::env::var("FIB_CHOICES_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2usize)
        .max(1);
    let results = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..jobs)
        .map(|_| {
            let queue = Arc::clone(&queue);
            let results = Arc::clone(&results);
            thread::spawn(move || loop {
                let Some(p) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let r = check_program(&p);
                results.lock().unwrap().push((p.name, r));
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mut results = std::mem::take(&mut *results.lock().unwrap());
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut bad = Vec::new();
    for (_, (problems, timing)) in &results {
        if !timing.is_empty() {
            eprintln!("{timing}");
        }
        bad.extend(problems.iter().cloned());
    }
    assert_eq!(results.len(), count);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn every_ok_program_runs_natively() {
    let scratch = tempfile::tempdir().unwrap();
    let mut bad = Vec::new();
    for p in programs().iter().filter(|p| p.expect.outcome == "ok") {
        let exe = scratch.path().join(p.name.trim_end_matches(".c"));
        let mut cc = Command::new("mpicc.mpich");
        cc.args(["-std=c99", "-Wall", "-o"]).arg(&exe).arg(&p.path);
        let (code, _, err, _) = run_limited(cc, Duration::from_secs(120));
        if code != Some(0) {
            bad.push(format!("{}: mpicc.mpich failed:\n{err}", p.name));
            continue;
        }
        let mut run = Command::new("mpiexec.mpich");
        run.args(["-n", &p.expect.nprocs.to_string()])
            .arg(&exe)
            .current_dir(scratch.path());
        let (code, out, err, timed_out) = run_limited(run, Duration::from_secs(120));
        if timed_out || code != Some(0) {
            bad.push(format!(
                "{} -n {}: native run ended with {code:?}{}:\n{out}{err}",
                p.name,
                p.expect.nprocs,
                if timed_out { " (out of time)" } else { "" }
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
