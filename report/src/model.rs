//! The data every output format renders: one [`ProgramReport`] per checked
//! program, each with its [`Finding`]s.

use serde::Serialize;

use crate::finding::{Finding, Severity};
use crate::timeline::Timeline;

/// Everything one `fib check` run found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// The user interrupted the check: the report holds what was gathered
    /// before (absent from the JSON otherwise).
    #[serde(skip_serializing_if = "is_false")]
    pub interrupted: bool,
    pub programs: Vec<ProgramReport>,
    /// The checks an interrupt kept from starting (or from running a
    /// single interleaving), in the order they would have run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_checked: Vec<NotChecked>,
}

/// A check that did not happen because the user interrupted fib first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotChecked {
    /// The program's main source, or the path given on the command line
    /// when fib had not yet looked for its programs.
    pub program: String,
    /// The process count it would have run with, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nprocs: Option<usize>,
}

fn is_false(b: &bool) -> bool {
    !*b
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
    /// The user interrupted this program's check: `interleavings` counts
    /// the runs made before, findings speak of them, and no barrier group
    /// is called irrelevant (absent from the JSON otherwise).
    #[serde(skip_serializing_if = "is_false")]
    pub interrupted: bool,
    /// Standard sends went from fib's copies of the program's data: an
    /// interleaving needed MPI to buffer a message that MPI holds until its
    /// receive is posted (one above its eager limit), so fib buffered the
    /// program's sends itself (absent from the JSON otherwise).
    #[serde(skip_serializing_if = "is_false")]
    pub sends_copied: bool,
    /// The files the first interleaving created or changed in its scratch
    /// directory, kept where the user can find them (absent when it wrote
    /// none, or ran in the program's own directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<KeptFiles>,
    /// What the workflow steps (waivers, severity overrides, a baseline)
    /// took out of `findings`; its counts appear in the JSON only when not
    /// zero.
    #[serde(flatten)]
    pub workflow: Workflow,
}

/// The files a program's first run wrote, kept after the check.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KeptFiles {
    /// The directory they are in.
    pub dir: String,
    /// Each one's path in `dir`, sorted.
    pub files: Vec<String>,
}

/// What happened to a program's findings after its check: the waivers that
/// suppressed some, the findings a baseline already knew, those the
/// configuration turned off. Empty unless one of them applied.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Workflow {
    /// The program's source files, as shown (where its waivers are looked
    /// for); not part of the JSON.
    #[serde(skip)]
    pub sources: Vec<String>,
    /// The findings a waiver suppressed; the JSON gives how many.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "count")]
    pub waived: Vec<Waived>,
    /// How many findings a baseline (`--baseline`) already knew.
    #[serde(skip_serializing_if = "is_zero")]
    pub baselined: usize,
    /// How many findings the configuration turned off (`"off"` under
    /// `[severity]`).
    #[serde(skip)]
    pub off: usize,
}

impl Workflow {
    /// Whether some finding of the program was taken out.
    pub fn suppressed_any(&self) -> bool {
        !self.waived.is_empty() || self.baselined > 0 || self.off > 0
    }
}

/// A finding a waiver suppressed, as the summary mentions it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waived {
    /// The code, such as `FIB014`.
    pub code: &'static str,
    pub file: String,
    pub line: u32,
    /// The waiver's reason, when it gives one.
    pub reason: Option<String>,
}

fn count<S: serde::Serializer>(v: &[Waived], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(v.len() as u64)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    /// Every `MPI_Barrier` and `MPI_Ibarrier` site, executed or not.
    pub barriers: Vec<SiteFact>,
    /// Every receive or probe with `MPI_ANY_SOURCE` or `MPI_ANY_TAG`.
    pub wildcards: Vec<SiteFact>,
    /// Why the MPI calls a rank makes may depend on what it receives (a
    /// condition or an argument that reads received data): then every order
    /// of a row of wildcard receives is run. Empty when one run stands for
    /// them all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steering: Vec<String>,
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
    /// Whether the site is in a function the program never calls (shown
    /// only when it is): no input or process count reaches it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dead: bool,
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
    /// Runs, part of `explore_ms` and not counted as interleavings, that
    /// tried the other orders of rows of wildcard receives whose order
    /// might matter, each with every other choice of its interleaving
    /// (absent when there were none).
    #[serde(skip_serializing_if = "is_zero")]
    pub probe_runs: usize,
}

/// A place in a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SiteRef {
    pub file: String,
    /// 0 when no line is known (a call in a prebuilt binary without debug
    /// information, whose `file` then names the function and offset).
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
    /// The check was interrupted before it could decide: no run so far
    /// showed the group relevant, and one not run might.
    Undecided,
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

/// A memory access named in a witness: who made it, what it is and the
/// window memory it touches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WitnessAccess {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    #[serde(skip)]
    pub span: Option<(usize, usize)>,
    pub rank: usize,
    /// `load`, `store`, or the call (`MPI_Put`, `MPI_Win_lock`).
    pub what: String,
    /// The rank whose window memory it touches, and the bytes (offsets in
    /// that rank's window).
    pub target: usize,
    pub offset: u64,
    pub len: u64,
    /// The call that completes it, such as `MPI_Win_unlock at a.c:41`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_by: Option<String>,
    /// When the access is MPI's use of the buffer of the call `what` (a
    /// message or collective call): whether MPI writes it (a receive
    /// buffer) or only reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<bool>,
}

/// What a barrier relevant through memory keeps from happening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryWitness {
    /// Without it the two accesses race.
    Race,
    /// It decides which of two lock epochs goes first, and the accesses
    /// (one in each) conflict.
    LockOrder,
    /// It decides which of two lock epochs goes first, and in the other
    /// order the two accesses race.
    RaceInOtherOrder,
}

/// The two lock epochs of a memory witness on the window of `target`:
/// the lock of the epoch granted first and of the one granted after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WitnessLocks {
    pub first: WitnessOp,
    pub second: WitnessOp,
    pub target: usize,
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
    /// An irrelevant group: how much of the program the verdict covers,
    /// and when accesses on both sides of it conflict, what else orders
    /// them (`ordered_by`).
    Irrelevant {
        interleavings: usize,
        ranks: usize,
        instances: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        ordered_by: Option<String>,
    },
    /// A group relevant through memory, as `kind` says, with the two
    /// accesses `first` and `second`, the lock epochs whose order it fixes
    /// (`locks`, for the kinds about lock orders), and `path`, the order
    /// through the barrier (between the accesses, or from the first lock's
    /// grant to the second lock's call), in the interleaving `replay`.
    Memory {
        kind: MemoryWitness,
        first: WitnessAccess,
        second: WitnessAccess,
        #[serde(skip_serializing_if = "Option::is_none")]
        locks: Option<WitnessLocks>,
        path: Vec<String>,
        replay: String,
    },
}

/// Something a barrier group may order besides messages: a clock reading or
/// output right after one of its sites; or, for a site of a prebuilt binary
/// whose source fib did not analyse, that it may order either.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Purpose {
    /// `timing` or `output`; `unread` for a site whose source fib did not
    /// analyse (then `call` is the barrier's own, and the place its site).
    pub kind: &'static str,
    /// The call (`MPI_Wtime`, `printf`).
    pub call: String,
    pub file: String,
    pub line: u32,
    /// When the clock reading or output follows a call of the function the
    /// barrier ends (a barrier wrapper) in a caller: that call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Via>,
}

/// A call of the function that ends with a barrier, in a caller.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Via {
    /// The function called.
    pub function: String,
    pub file: String,
    pub line: u32,
}

/// A condition that decides whether a barrier site runs, and what decides
/// the condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gate {
    /// As written: `if (debug)`.
    pub text: String,
    pub file: String,
    pub line: u32,
    pub kind: GateKind,
}

/// What can change a [`Gate`]'s condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateKind {
    /// Nothing but the build: the condition is a constant that keeps the
    /// barrier away. `why` is a phrase ("`debug` is 0 wherever it is
    /// set"); `macro_def` the macro it names and where it is defined
    /// (`file:line`); `left_out` a definition the preprocessor left out.
    Off {
        why: String,
        macro_def: Option<(String, String)>,
        left_out: Option<LeftOut>,
    },
    /// The program's input; the reason names what the condition reads.
    Input { reason: String },
    /// The rank or the process count.
    Count,
    /// Only constants, whose value fib cannot tell.
    Fixed,
}

/// A definition the preprocessor left out of this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// `file:line` of the definition.
    pub at: String,
    /// The directive that leaves it out (`#ifdef DEBUG`).
    pub directive: String,
    /// The flag that takes it in (`-DDEBUG`), when the directive says.
    pub flag: Option<String>,
}

/// One barrier group: the `MPI_Barrier` (and `MPI_Ibarrier`) sites that
/// match each other.
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
    /// What the group may order besides messages (the advice of an
    /// irrelevant verdict says so).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub purposes: Vec<Purpose>,
    /// The picture of the witness's run, for a relevant verdict the fast
    /// method found (for the HTML report; never serialised).
    #[serde(skip)]
    pub timeline: Option<Timeline>,
}

impl Report {
    /// The process exit code for this report: 0 when nothing was found, 1
    /// when something was, 2 when fib could not check some program, 130
    /// when the user interrupted the check.
    ///
    /// A program whose run failed (a deadlock, a crash) counts through the
    /// findings that say so; once a waiver, a baseline or the configuration
    /// has taken out or lowered some of its findings, only what is left
    /// counts.
    pub fn exit_code(&self) -> i32 {
        if self.interrupted {
            // What the shell reports for a command stopped by SIGINT.
            return 130;
        }
        let tool_failure = |p: &ProgramReport| {
            p.outcome.is_tool_failure() || p.findings.iter().any(|f| f.code.tool_failure)
        };
        let adjusted = |p: &ProgramReport| {
            p.workflow.suppressed_any() || p.findings.iter().any(|f| f.severity_overridden())
        };
        if self.programs.iter().any(tool_failure) {
            2
        } else if self.programs.iter().any(|p| {
            (p.outcome != Outcome::Ok && !adjusted(p))
                || p.findings.iter().any(|f| f.severity() >= Severity::Warning)
        }) {
            1
        } else {
            0
        }
    }
}
