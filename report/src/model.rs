//! The data every output format renders: one [`ProgramReport`] per checked
//! program, each with its [`Finding`]s.

use serde::{Serialize, Serializer};

use crate::codes::Code;

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
    /// Whether the program was compiled for this check (`built`) or taken
    /// from fib's build cache (`cached`); absent when it did not build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildKind>,
    /// What fib knows about the program without running it.
    #[serde(rename = "static", skip_serializing_if = "Option::is_none")]
    pub static_facts: Option<StaticFacts>,
    /// Every barrier group and its verdict (empty when the program did not
    /// run or has no barrier).
    pub barriers: Vec<BarrierReport>,
    /// Where the time went.
    pub timing: Timing,
    /// Wall-clock time of the whole verification, in milliseconds.
    pub elapsed_ms: u64,
}

/// Where a checked program's executable came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuildKind {
    Built,
    Cached,
}

/// The static facts of one program: its MPI call sites, its barriers and
/// wildcard receives, and whether reaching them depends on input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StaticFacts {
    /// MPI call sites in the program's sources.
    pub sites: usize,
    /// Every `MPI_Barrier` site, executed or not.
    pub barriers: Vec<SiteFact>,
    /// Every receive or probe with `MPI_ANY_SOURCE` or `MPI_ANY_TAG`.
    pub wildcards: Vec<SiteFact>,
}

/// A barrier or wildcard site and what decides whether it runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SiteFact {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub callee: String,
    /// Whether the control flow reaching the site depends only on rank,
    /// size and constants, so that what fib finds there holds for every
    /// input, not only for the one tested.
    pub all_inputs: bool,
    /// Why it does not, when it does not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// Wall-clock time per phase of one program's check, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Timing {
    /// Parsing, instrumenting and compiling (or finding the build cached).
    pub build_ms: u64,
    /// Running the interleavings.
    pub explore_ms: u64,
    /// The Fib pass over every interleaving.
    pub fib_ms: u64,
    /// The same in microseconds: on small programs the pass takes well
    /// under a millisecond.
    pub fib_us: u64,
    /// The proof by removal (`--confirm`).
    pub confirm_ms: u64,
}

/// A place in a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SiteRef {
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// Byte offsets `[start, end)` of the call in the file, when known.
    #[serde(skip)]
    pub span: Option<(usize, usize)>,
}

/// What fib concluded about one barrier group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Deleting the group's sites changes what the program's messages can
    /// do (or deadlocks it).
    Relevant,
    /// Deleting all the group's sites together changes nothing the
    /// program's communication can do.
    Irrelevant,
    /// No site of the group ran in any explored interleaving.
    NotCovered,
}

/// An operation named in a witness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WitnessOp {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub rank: usize,
    /// The MPI function, such as `MPI_Recv`.
    pub call: String,
    /// Byte offsets `[start, end)` of the call in the file, when known.
    #[serde(skip)]
    pub span: Option<(usize, usize)>,
}

/// Why a verdict holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
// A program has a handful of barrier groups: boxing the relevant witness's
// operations would save nothing worth the indirection.
#[allow(clippy::large_enum_variant)]
pub enum Witness {
    /// A relevant group: without its barrier, `send` could match the
    /// wildcard receive `recv`; `path` is the completes-before path from one
    /// to the other through the barrier, in the interleaving `replay`.
    Relevant {
        recv: WitnessOp,
        send: WitnessOp,
        path: Vec<String>,
        replay: String,
    },
    /// An irrelevant group: how much of the program the verdict covers.
    Irrelevant {
        interleavings: usize,
        ranks: usize,
        instances: usize,
    },
}

/// One barrier group: the `MPI_Barrier` sites that match each other.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BarrierReport {
    pub group: Vec<SiteRef>,
    pub verdict: Verdict,
    /// Whether `--confirm` re-explored the program without the group and
    /// found the same verdict.
    pub confirmed: bool,
    /// Whether the verdict holds for every input (the control flow reaching
    /// every site depends only on rank, size and constants), not only for
    /// the input tested.
    pub all_inputs: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Witness>,
}

/// A secondary place a finding points at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    pub file: String,
    pub line: u32,
    pub column: u32,
    #[serde(skip)]
    pub span: Option<(usize, usize)>,
    pub message: String,
}

/// How serious a finding is. Each code has one (see
/// [`Code::severity`](crate::codes::Code)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    /// The name used in the JSON output, the human format and `fib explain`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A place in the user's sources, already resolved: what a finding's facts
/// point at. Any part may be unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Byte offsets `[start, end)` of the call in the file, when known.
    pub span: Option<(usize, usize)>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// Byte offsets `[start, end)` of the call in the file, when known.
    #[serde(skip)]
    pub span: Option<(usize, usize)>,
}

/// One thing fib found, with a stable code (see [`crate::codes`]).
///
/// Findings are made by the rules of [`crate::codes`], one per code, from
/// the facts of what fib found; the code gives the severity. The fields can
/// be read (and, for tests, adjusted), but not filled in from outside.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Finding {
    pub code: &'static Code,
    pub message: String,
    /// The primary location: the call at fault, when known.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The primary location's byte span in its file, when known.
    pub span: Option<(usize, usize)>,
    pub rank: Option<usize>,
    /// The replay token of the interleaving that shows the finding
    /// (`fib check ... --replay TOKEN` runs just that interleaving).
    pub replay: Option<String>,
    /// Every rank's state, for deadlocks and run-ending failures.
    pub ranks: Vec<RankState>,
    /// Extra lines: the compiler's or the program's own error output.
    pub notes: Vec<String>,
    /// Other places the finding involves (the other sites of a barrier
    /// group, the receive and send of a witness).
    pub labels: Vec<Label>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Finding {
    /// A finding of `code` with a message, and nothing else yet: no
    /// location, rank, replay token, notes, labels or help. Only the rules
    /// in [`crate::codes`] make findings.
    pub(crate) fn new(code: &'static Code, message: impl Into<String>) -> Finding {
        Finding {
            code,
            message: message.into(),
            file: None,
            line: None,
            column: None,
            span: None,
            rank: None,
            replay: None,
            ranks: Vec::new(),
            notes: Vec::new(),
            labels: Vec::new(),
            help: None,
        }
    }

    /// The same finding, located at `place`.
    pub(crate) fn at(mut self, place: &Place) -> Finding {
        self.file = place.file.clone();
        self.line = place.line;
        self.column = place.column;
        self.span = place.span;
        self
    }

    /// How serious the finding is: its code's severity.
    pub fn severity(&self) -> Severity {
        self.code.severity
    }
}

fn is_empty<T>(v: &&[T]) -> bool {
    v.is_empty()
}

/// The JSON form of a finding: the code by its name, the severity its code
/// gives, no byte spans.
impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Json<'a> {
            code: &'static str,
            severity: Severity,
            message: &'a str,
            file: Option<&'a str>,
            line: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            column: Option<u32>,
            rank: Option<usize>,
            replay: Option<&'a str>,
            #[serde(skip_serializing_if = "is_empty")]
            ranks: &'a [RankState],
            #[serde(skip_serializing_if = "is_empty")]
            notes: &'a [String],
            #[serde(skip_serializing_if = "is_empty")]
            labels: &'a [Label],
            #[serde(skip_serializing_if = "Option::is_none")]
            help: Option<&'a str>,
        }
        Json {
            code: self.code.code,
            severity: self.severity(),
            message: &self.message,
            file: self.file.as_deref(),
            line: self.line,
            column: self.column,
            rank: self.rank,
            replay: self.replay.as_deref(),
            ranks: &self.ranks,
            notes: &self.notes,
            labels: &self.labels,
            help: self.help.as_deref(),
        }
        .serialize(serializer)
    }
}

impl Report {
    /// The process exit code for this report: 0 when nothing was found, 1
    /// when something was, 2 when fib could not check some program.
    pub fn exit_code(&self) -> i32 {
        let tool_failure = |p: &ProgramReport| {
            p.outcome.is_tool_failure() || p.findings.iter().any(|f| f.code.tool_failure)
        };
        if self.programs.iter().any(tool_failure) {
            2
        } else if self.programs.iter().any(|p| {
            p.outcome != Outcome::Ok || p.findings.iter().any(|f| f.severity() >= Severity::Warning)
        }) {
            1
        } else {
            0
        }
    }
}
