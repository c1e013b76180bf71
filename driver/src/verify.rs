//! Verifies one program: builds it, explores its interleavings run by run,
//! and turns what the runs showed into findings.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fib_report::{Buffering, Finding, Outcome, ProgramReport, RankState, Severity};
use fib_wire::Site;
use poe::engine::{ChoicePoint, RankView, RunEnd};
use poe::{Explorer, Token};

use crate::server::{self, Ending, RunRecord, RunSpec};
use crate::DriverError;

/// How to verify a program.
#[derive(Clone, Debug)]
pub struct Options {
    pub nprocs: usize,
    pub zero_buffer: bool,
    /// The time limit of one interleaving.
    pub timeout: Duration,
    /// Run only this interleaving.
    pub replay: Option<Token>,
    /// Stop exploring after this many interleavings.
    pub max_interleavings: usize,
    /// The interposition library (`libfib_interpose.so`).
    pub interpose: PathBuf,
    pub mpicc: String,
    pub mpiexec: String,
    /// Arguments passed to the program.
    pub args: Vec<String>,
}

/// Verifies `source` and reports what every explored interleaving showed.
pub fn verify(source: &Path, opts: &Options) -> Result<ProgramReport, DriverError> {
    let started = Instant::now();
    let mut report = ProgramReport {
        program: source.display().to_string(),
        nprocs: opts.nprocs,
        buffering: if opts.zero_buffer {
            Buffering::Zero
        } else {
            Buffering::Buffered
        },
        outcome: Outcome::Ok,
        interleavings: 0,
        findings: Vec::new(),
        calls: 0,
        elapsed_ms: 0,
    };
    let built = match crate::build::build(&opts.mpicc, source)? {
        Ok(b) => b,
        Err(fail) => {
            report.outcome = Outcome::BuildFailed;
            report.findings.push(Finding {
                code: "FIB007",
                severity: Severity::Error,
                message: format!("{} does not compile", source.display()),
                file: fail.file,
                line: fail.line,
                rank: None,
                replay: None,
                ranks: Vec::new(),
                notes: fail.output.lines().take(40).map(str::to_string).collect(),
            });
            report.elapsed_ms = started.elapsed().as_millis() as u64;
            return Ok(report);
        }
    };
    let spec = RunSpec {
        mpiexec: &opts.mpiexec,
        nprocs: opts.nprocs,
        exe: &built.exe,
        args: &opts.args,
        interpose: &opts.interpose,
        zero_buffer: opts.zero_buffer,
        timeout: opts.timeout,
    };
    let mut explorer = Explorer::new();
    let mut seen: Vec<(String, Vec<RankState>)> = Vec::new();
    loop {
        let plan = match &opts.replay {
            Some(t) if report.interleavings == 0 => t.plan(),
            Some(_) => break,
            None => match explorer.next_plan() {
                Some(p) => p,
                None => break,
            },
        };
        if report.interleavings >= opts.max_interleavings {
            report.findings.push(Finding {
                code: "FIB011",
                severity: Severity::Warning,
                message: format!(
                    "stopped after {} interleavings (--max-interleavings); the rest were not explored",
                    opts.max_interleavings
                ),
                file: None,
                line: None,
                rank: None,
                replay: None,
                ranks: Vec::new(),
                notes: Vec::new(),
            });
            break;
        }
        let planned = plan.len();
        let rec = server::run(&spec, plan)?;
        report.interleavings += 1;
        report.calls += rec.calls;
        explorer.finished(&rec.choices);
        let token = Token::of(&rec.choices);
        let replay_short = opts.replay.is_some() && rec.choices.len() < planned;
        let stop = judge(&rec, &token, &mut report, &mut seen, replay_short);
        if stop {
            break;
        }
    }
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    drop(built);
    Ok(report)
}

fn site_of(rec: &RunRecord, site: Site) -> (Option<String>, Option<u32>) {
    match rec.files.get(&site.file) {
        Some(f) => (Some(f.clone()), Some(site.line)),
        None => (None, None),
    }
}

fn rank_states(rec: &RunRecord, views: &[RankView]) -> Vec<RankState> {
    views
        .iter()
        .map(|v| {
            let (file, line) = site_of(rec, v.site);
            let call = match (v.call, v.finalized) {
                (Some(c), _) => c.to_string(),
                (None, true) => "finished".to_string(),
                (None, false) => "running".to_string(),
            };
            RankState {
                rank: v.rank,
                call,
                file,
                line,
            }
        })
        .collect()
}

fn worse(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: Outcome| match o {
        Outcome::Ok => 0,
        Outcome::Timeout => 1,
        Outcome::Deadlock => 2,
        Outcome::Crash => 3,
        Outcome::Unsupported => 4,
        Outcome::BuildFailed => 5,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The lines of the program's stderr worth showing (the launcher's banners
/// left out).
fn program_stderr(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty()
                && !t.starts_with("====")
                && !t.contains("BAD TERMINATION")
                && !t.starts_with("=   ")
                && !t.contains("CLEANING UP REMAINING PROCESSES")
                && !t.contains("YOU CAN IGNORE THE BELOW CLEANUP MESSAGES")
                && !t.starts_with("PID ")
                && !t.starts_with("EXIT CODE")
                && !t.starts_with("YOUR APPLICATION TERMINATED")
                && !t.starts_with("This typically refers to a problem")
                && !t.starts_with("or a segmentation fault")
                && !t.starts_with("a segmentation fault")
        })
        .take(12)
        .map(str::to_string)
        .collect()
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV (segmentation fault)",
        libc::SIGBUS => "SIGBUS (bus error)",
        libc::SIGFPE => "SIGFPE (arithmetic error)",
        libc::SIGILL => "SIGILL (illegal instruction)",
        libc::SIGABRT => "SIGABRT (abort, e.g. a failed assert)",
        _ => "a fatal signal",
    }
}

fn describe_point(p: &Option<ChoicePoint>) -> String {
    match p {
        Some(p) => format!(
            "rank {} call #{} choosing among {} alternatives",
            p.at.rank,
            p.at.index,
            p.alternatives.len()
        ),
        None => "no choice point".into(),
    }
}

/// Turns one run into findings; returns whether exploration must stop.
fn judge(
    rec: &RunRecord,
    token: &Token,
    report: &mut ProgramReport,
    seen: &mut Vec<(String, Vec<RankState>)>,
    replay_short: bool,
) -> bool {
    let replay = Some(token.to_string());
    let mut f = Finding {
        code: "",
        severity: Severity::Error,
        message: String::new(),
        file: None,
        line: None,
        rank: None,
        replay: replay.clone(),
        ranks: Vec::new(),
        notes: Vec::new(),
    };
    let (outcome, stop) = match &rec.ending {
        Ending::Engine(RunEnd::Completed) if replay_short => {
            f.code = "FIB008";
            f.message = "the replay token names more choices than this run had; the program does not behave as when the token was made".into();
            (Outcome::Unsupported, true)
        }
        Ending::Engine(RunEnd::Completed) => return false,
        Ending::Engine(RunEnd::Deadlock { ranks }) | Ending::Engine(RunEnd::Livelock { ranks }) => {
            let live = matches!(rec.ending, Ending::Engine(RunEnd::Livelock { .. }));
            f.code = if live { "FIB010" } else { "FIB001" };
            f.ranks = rank_states(rec, ranks);
            let blocked: Vec<&RankState> = f
                .ranks
                .iter()
                .filter(|s| s.call != "finished" && s.call != "MPI_Finalize")
                .collect();
            let first = blocked.first().copied().or(f.ranks.first());
            if let Some(s) = first {
                f.file = s.file.clone();
                f.line = s.line;
                f.rank = Some(s.rank);
            }
            f.message = if live {
                "livelock: every rank waits or polls, and no poll can ever succeed".into()
            } else {
                let what: Vec<String> = blocked
                    .iter()
                    .map(|s| format!("rank {} in {}", s.rank, s.call))
                    .collect();
                format!("deadlock: {}", what.join(", "))
            };
            (Outcome::Deadlock, false)
        }
        Ending::Engine(RunEnd::CollectiveMismatch { comm, calls }) => {
            f.code = "FIB009";
            let names: Vec<String> = calls
                .iter()
                .map(|(id, name, _)| format!("rank {} calls {}", id.rank, name))
                .collect();
            f.message = format!(
                "collective mismatch on {}: {}",
                comm_name(*comm),
                names.join(", ")
            );
            f.ranks = calls
                .iter()
                .map(|(id, name, site)| {
                    let (file, line) = site_of(rec, *site);
                    RankState {
                        rank: id.rank,
                        call: name.to_string(),
                        file,
                        line,
                    }
                })
                .collect();
            if let Some(s) = f.ranks.first() {
                f.file = s.file.clone();
                f.line = s.line;
                f.rank = Some(s.rank);
            }
            (Outcome::Deadlock, false)
        }
        Ending::Engine(RunEnd::Divergence {
            index,
            expected,
            found,
        }) => {
            f.code = "FIB008";
            if let Some(p) = found {
                let (file, line) = site_of(rec, p.site);
                f.file = file;
                f.line = line;
                f.rank = Some(p.at.rank);
            }
            f.message = format!(
                "replay diverged at choice {}: expected {}, found {}; the program's behaviour depends on something other than MPI (time, random numbers, uninitialised memory)",
                index + 1,
                describe_point(expected),
                describe_point(found)
            );
            (Outcome::Unsupported, true)
        }
        Ending::Engine(RunEnd::Invalid { op, site, message }) => {
            f.code = "FIB012";
            let (file, line) = site_of(rec, *site);
            f.file = file;
            f.line = line;
            f.rank = Some(op.rank);
            f.message = format!("invalid MPI call: {message}");
            (Outcome::Crash, false)
        }
        Ending::Crash { rank, signal, site } => {
            f.code = "FIB002";
            let (file, line) = site_of(rec, *site);
            f.file = file;
            f.line = line;
            f.rank = Some(*rank);
            f.message = format!(
                "rank {rank} crashed with {}{}",
                signal_name(*signal),
                if site.file == 0 {
                    String::new()
                } else {
                    " after its last MPI call".into()
                }
            );
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::Abort { rank, code, site } => {
            f.code = "FIB003";
            let (file, line) = site_of(rec, *site);
            f.file = file;
            f.line = line;
            f.rank = Some(*rank);
            f.message = format!("rank {rank} called MPI_Abort with error code {code}");
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::NoFinalize { rank, site } => {
            f.code = "FIB004";
            let (file, line) = site_of(rec, *site);
            f.file = file;
            f.line = line;
            f.rank = Some(*rank);
            f.message = format!("rank {rank} exited without calling MPI_Finalize");
            if site.file != 0 {
                f.message.push_str(" (its last MPI call is shown)");
            }
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::Unsupported { rank, name, site } => {
            f.code = "FIB006";
            let (file, line) = site_of(rec, *site);
            f.file = file;
            f.line = line;
            f.rank = Some(*rank);
            f.message = format!("{name} is not supported by fib yet");
            (Outcome::Unsupported, true)
        }
        Ending::Timeout => {
            f.code = "FIB005";
            f.ranks = rank_states(rec, &rec.ranks);
            f.message = "the program ran past the time limit (--timeout)".into();
            if let Some(s) = f.ranks.iter().find(|s| s.call == "running") {
                f.rank = Some(s.rank);
                f.file = s.file.clone();
                f.line = s.line;
                f.message
                    .push_str(&format!("; rank {} was computing, not in MPI", s.rank));
            }
            (Outcome::Timeout, false)
        }
        Ending::LaunchFailed { status } => {
            f.code = "FIB004";
            f.message =
                format!("the program ended before every rank called MPI_Init (mpiexec {status})");
            f.notes = program_stderr(&rec.stderr);
            (Outcome::Crash, false)
        }
        Ending::Protocol { rank, message } => {
            f.code = "FIB013";
            f.rank = *rank;
            f.message = format!("fib lost track of the run: {message}");
            (Outcome::Unsupported, true)
        }
    };
    report.outcome = worse(report.outcome, outcome);
    let key = (format!("{}:{}", f.code, f.message), f.ranks.clone());
    if !seen.contains(&key) {
        seen.push(key);
        report.findings.push(f);
    }
    stop
}

fn comm_name(comm: u32) -> String {
    match comm {
        fib_wire::COMM_WORLD => "MPI_COMM_WORLD".into(),
        fib_wire::COMM_SELF => "MPI_COMM_SELF".into(),
        c => format!("communicator #{c}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_the_driver_reports_is_documented() {
        let src = include_str!("verify.rs");
        let mut n = 0;
        for (i, _) in src.match_indices("\"FIB") {
            let code = &src[i + 1..i + 7];
            if !code[3..].bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            assert!(
                fib_report::codes::lookup(code).is_some(),
                "{code} has no entry in report/src/codes"
            );
            n += 1;
        }
        assert!(n >= 12, "found only {n} codes");
    }

    #[test]
    fn launcher_banners_are_left_out_of_program_stderr() {
        let text = "prog: x.c:8: main: Assertion `r' failed.\n\n===================\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 12 RUNNING AT vm\n";
        assert_eq!(
            program_stderr(text),
            vec!["prog: x.c:8: main: Assertion `r' failed.".to_string()]
        );
    }
}
