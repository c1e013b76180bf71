//! The data every output format renders: one [`ProgramReport`] per checked
//! program, each with its [`Finding`]s.

use serde::Serialize;

/// Everything one `fib check` run found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub programs: Vec<ProgramReport>,
}

/// How a program's verification ended, over all the interleavings explored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Every interleaving finished in `MPI_Finalize` with nothing wrong.
    Ok,
    /// Some interleaving deadlocked (or livelocked in polling calls).
    Deadlock,
    /// Some rank crashed, aborted, failed an assertion or exited without
    /// `MPI_Finalize`.
    Crash,
    /// Some interleaving ran past the time limit.
    Timeout,
    /// The program did not compile.
    BuildFailed,
    /// The program called an MPI function fib does not model.
    Unsupported,
}

impl Outcome {
    /// The name used in the JSON output and the human summary.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Deadlock => "deadlock",
            Outcome::Crash => "crash",
            Outcome::Timeout => "timeout",
            Outcome::BuildFailed => "build-failed",
            Outcome::Unsupported => "unsupported",
        }
    }

    /// Whether fib could not do its job on the program (exit code 2) rather
    /// than finding something about it (exit code 1).
    pub fn is_tool_failure(self) -> bool {
        matches!(self, Outcome::BuildFailed | Outcome::Unsupported)
    }
}

/// How standard sends behaved in the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Buffering {
    /// `MPI_Send` and `MPI_Isend` complete without a matching receive.
    Buffered,
    /// Every standard send is synchronous (`--zero-buffer`).
    Zero,
}

/// The verification of one program at one process count.
#[derive(Clone, Debug, Serialize)]
pub struct ProgramReport {
    /// The program's main source file, as the user named it.
    pub program: String,
    pub nprocs: usize,
    pub buffering: Buffering,
    pub outcome: Outcome,
    /// Interleavings explored (complete runs of the program).
    pub interleavings: usize,
    pub findings: Vec<Finding>,
    /// MPI calls intercepted over all interleavings.
    pub calls: u64,
    /// Wall-clock time of the whole verification, in milliseconds.
    pub elapsed_ms: u64,
}

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// Where one rank stood when a run ended badly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RankState {
    pub rank: usize,
    /// The MPI call the rank was blocked in (`MPI_Recv`, ...), or a
    /// description such as `running` or `exited`.
    pub call: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// One thing fib found, with a stable code (see [`crate::codes`]).
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// The primary location: the call at fault, when known.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub rank: Option<usize>,
    /// The replay token of the interleaving that shows the finding
    /// (`fib check ... --replay TOKEN` runs just that interleaving).
    pub replay: Option<String>,
    /// Every rank's state, for deadlocks and run-ending failures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RankState>,
    /// Extra lines: the compiler's or the program's own error output.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Report {
    /// The process exit code for this report: 0 when nothing was found, 1
    /// when something was, 2 when fib could not check some program.
    pub fn exit_code(&self) -> i32 {
        if self.programs.iter().any(|p| p.outcome.is_tool_failure()) {
            2
        } else if self.programs.iter().any(|p| {
            p.outcome != Outcome::Ok || p.findings.iter().any(|f| f.severity == Severity::Error)
        }) {
            1
        } else {
            0
        }
    }
}
