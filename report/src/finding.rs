//! What one finding is: its code (with the code's severity and
//! documentation), where it points, and how it is serialised. The rules in
//! [`crate::codes`] make findings; the report model collects them.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::timeline::Timeline;

/// One finding code and its documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    /// The stable code, such as `FIB001`.
    pub code: &'static str,
    /// A short kebab-case name, such as `deadlock`.
    pub name: &'static str,
    /// The severity findings with this code carry.
    pub severity: Severity,
    /// Whether a finding with this code means fib itself failed on the
    /// program (exit code 2) rather than found something about it: a
    /// protocol fault, a disagreement between the fast barrier method and
    /// `--confirm`.
    pub tool_failure: bool,
    /// One sentence saying what the code reports.
    pub summary: &'static str,
    /// The long text, with the sections `## What it means`, `## Why it
    /// matters`, `## Example` and `## What to do`.
    pub explanation: &'static str,
}

/// The code itself, such as `FIB001`.
impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code)
    }
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
    /// The thread that made the call, when the rank had several (fib's
    /// numbering, as in the thread findings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<u32>,
}

/// The nonblocking collectives (`fib_wire::CollKind::is_nonblocking`, then
/// the nonblocking constructors): a rank that called one returned at once,
/// so a finding shows it as called, never as blocked in it.
pub const NONBLOCKING_COLLECTIVES: &[&str] = &[
    "MPI_Ibarrier",
    "MPI_Ibcast",
    "MPI_Ireduce",
    "MPI_Iallreduce",
    "MPI_Igather",
    "MPI_Iscatter",
    "MPI_Iallgather",
    "MPI_Ialltoall",
    "MPI_Igatherv",
    "MPI_Iscatterv",
    "MPI_Iallgatherv",
    "MPI_Ialltoallv",
    "MPI_Ialltoallw",
    "MPI_Iscan",
    "MPI_Iexscan",
    "MPI_Ireduce_scatter",
    "MPI_Ireduce_scatter_block",
    "MPI_Ineighbor_allgather",
    "MPI_Ineighbor_allgatherv",
    "MPI_Ineighbor_alltoall",
    "MPI_Ineighbor_alltoallv",
    "MPI_Ineighbor_alltoallw",
    "MPI_Comm_idup",
    "MPI_Comm_idup_with_info",
];

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
    /// The severity the configuration gives this finding instead of its
    /// code's (`[severity]` in `fib.toml`); `None` almost always.
    severity_override: Option<Severity>,
    /// The space-time picture of the run that shows it (deadlock-like
    /// findings, relevant barriers), for the HTML report; never serialised.
    pub timeline: Option<Timeline>,
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
            severity_override: None,
            timeline: None,
        }
    }

    /// The same finding with the picture of the run that shows it.
    pub fn with_timeline(mut self, timeline: Option<Timeline>) -> Finding {
        self.timeline = timeline;
        self
    }

    /// The same finding, located at `place`.
    pub(crate) fn at(mut self, place: &Place) -> Finding {
        self.file = place.file.clone();
        self.line = place.line;
        self.column = place.column;
        self.span = place.span;
        self
    }

    /// Labels `place` with `message`, when the place has a file and a line
    /// (a place fib could not resolve gets no label).
    pub(crate) fn label_at(&mut self, place: &Place, message: String) {
        if let (Some(file), Some(line)) = (&place.file, place.line) {
            self.labels.push(Label {
                file: file.clone(),
                line,
                column: place.column.unwrap_or(1),
                span: place.span,
                message,
            });
        }
    }

    /// How serious the finding is: its code's severity, unless the
    /// configuration overrides it.
    pub fn severity(&self) -> Severity {
        self.severity_override.unwrap_or(self.code.severity)
    }

    /// Gives the finding another severity than its code's. Only the
    /// configuration step (`[severity]` in `fib.toml`, see
    /// [`crate::overrides::apply`]) calls this.
    pub fn override_severity(&mut self, severity: Severity) {
        self.severity_override = Some(severity);
    }

    /// Whether the configuration changed the finding's severity.
    pub fn severity_overridden(&self) -> bool {
        self.severity_override.is_some()
    }
}

fn is_empty<T>(v: &&[T]) -> bool {
    v.is_empty()
}

/// The JSON form of a finding: the code by its name, its severity (the
/// code's, or the configuration's override), no byte spans.
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
