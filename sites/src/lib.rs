//! The vocabulary of fib's static half, as plain data: the site table (every
//! MPI call site of a program, [`CallSite`] in a [`SiteTable`]), the static
//! facts keyed by site id ([`Facts`]: barriers, wildcard receives, what
//! decides whether they run, what a barrier may be there for, ...) and the
//! [`Analysis`] that bundles them with the files they came from.
//!
//! The `instrument` crate fills these types in with libclang (and re-exports
//! them at its root); the runtime analysis reads them to place run records on
//! source lines and to word its verdicts. Keeping them here lets the pure
//! crates speak of sites and facts without depending on libclang. Nothing
//! here does I/O: the paths are names, never opened.

#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One call to an MPI function, in the user's sources.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSite {
    /// Index in [`SiteTable::sites`]; what the runtime reports.
    pub id: u32,
    /// The file the call is attributed to, as the user names it (relative
    /// to the checked directory when it is inside it). For a call produced
    /// by a macro, the file of the macro's use.
    pub file: PathBuf,
    /// 1-based line and column of the callee's name at the attributed
    /// location (for a macro-produced call, the macro use's start).
    pub line: u32,
    pub column: u32,
    /// Byte offsets `[start, end)` in `file` of the whole call expression
    /// (for a macro-produced call: of the whole macro use).
    pub span: (usize, usize),
    /// The MPI function called, such as `MPI_Barrier`.
    pub callee: String,
    /// The source text of each argument, as written.
    pub args: Vec<String>,
    /// The function definition that contains the call, if any (for C++
    /// methods, `Class::method`).
    pub function: Option<String>,
    /// The name of the macro that produced the call, if it came from one.
    pub macro_name: Option<String>,
    /// Its buffer arguments whose element type the parse could classify,
    /// each with the datatype argument that describes it when that names
    /// an MPI datatype ([`buffer_args`] says which arguments these are).
    /// Empty for a call produced by a macro.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffers: Vec<BufferArg>,
    /// Its buffer arguments that point into a variable whose size the
    /// compiler knows (an array, a struct, a scalar whose address is
    /// taken): the instrumented copy hands the variable's address and size
    /// to the interposition library before the call, which checks the
    /// bytes the call covers against them (FIB039). Empty for a call
    /// produced by a macro.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bounds: Vec<Bound>,
    /// Its buffer arguments whose elements are a C struct, with the
    /// struct's layout, for the check of a struct datatype against it
    /// (FIB041). Empty for a call produced by a macro.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub structs: Vec<StructBuffer>,
    /// The OpenMP construct (`single`, `sections` or `task`) in whose
    /// block the call is written, and not inside a `master` or `masked`
    /// construct within it: any thread of the team may make the call. The
    /// instrumented copy says so to the interposition library before the
    /// call (FIB042 under `MPI_THREAD_FUNNELED`, whichever thread ran it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub any_thread: Option<String>,
}

/// A buffer argument that points into a variable of known size: `a`,
/// `&a[i]`, `a + i` of an array `a`, `&x` of a scalar or struct `x`, a
/// member `s.m` or `&s.m` of a variable `s` (bounded by all of `s`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    /// The buffer's position in the call's argument list, from 0.
    pub arg: usize,
    /// The variable's name as the call's text names it; the instrumented
    /// copy takes its address and `sizeof` (nothing else is evaluated).
    pub variable: String,
    /// Its size in bytes, as the parse computed it.
    pub size: u64,
    /// Its type as declared (`double [10]`).
    pub type_name: String,
    /// Where it is declared: a file of the tree (as `CallSite::file`
    /// names files) and a 1-based line, when the parse placed it there.
    pub declared: Option<(PathBuf, u32)>,
}

/// A buffer argument of an MPI call whose elements are a C struct (or
/// union), with that struct's layout as the parse saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructBuffer {
    /// The buffer argument.
    pub buffer: ArgPlace,
    /// The datatype argument that describes it.
    pub datatype: ArgPlace,
    /// The struct's name as written (`struct particle`).
    pub name: String,
    /// Its size in bytes (`sizeof`).
    pub size: u64,
    /// Its fields in declaration order.
    pub fields: Vec<Field>,
}

/// A field of a C struct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    /// Its offset in bytes (`offsetof`).
    pub offset: u64,
    /// How many scalar elements it holds (an array's length, all its
    /// dimensions multiplied; 1 for a scalar).
    pub count: u64,
    /// The size in bytes of one element.
    pub element_size: u64,
    /// What its elements are, when scalars (`None` for a struct, union or
    /// enum member).
    pub element: Option<Element>,
    /// Its type as written through typedefs (`double [3]`).
    pub c_type: String,
}

/// A buffer argument of an MPI call and the datatype argument that
/// describes its elements, as the parse saw them: what the check of the
/// buffer's type against its datatype (FIB032) compares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferArg {
    /// The buffer argument.
    pub buffer: ArgPlace,
    /// The datatype argument.
    pub datatype: ArgPlace,
    /// The MPI name the datatype argument is written as (`MPI_INT`), seen
    /// through the tree's own object-like macros (`#define REAL MPI_DOUBLE`).
    pub datatype_name: String,
    /// The type of the buffer expression as written, as a pointer to its
    /// elements: `int32_t *` (for an array `double a[4][4]`, `double *`).
    pub spelled: String,
    /// The same through typedefs: `int *`.
    pub canonical: String,
    /// What its elements are.
    pub element: Element,
}

/// Where an argument of a call is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgPlace {
    /// Its position in the call's argument list, from 0.
    pub index: usize,
    /// 1-based line and (byte) column of its start.
    pub line: u32,
    pub column: u32,
    /// Byte offsets `[start, end)` in the call's file.
    pub span: (usize, usize),
}

/// The element type of a buffer, through typedefs, when it is a scalar
/// (a buffer of structs, unions, enums or `void` has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Element {
    /// `char`, `signed char`, `unsigned char`: also raw storage.
    Char,
    /// `bool` / `_Bool`.
    Bool,
    /// Another integer type (`wchar_t` included) of this many bytes, of
    /// either sign.
    Integer { bytes: u32 },
    /// A real floating type of this many bytes.
    Floating { bytes: u32 },
    /// A complex type (`double _Complex`, `std::complex<double>`) whose
    /// parts have this many bytes each.
    Complex { bytes: u32 },
    /// A pointer: the buffer holds addresses.
    Pointer,
}

/// The arguments of an MPI function that are a buffer and the datatype of
/// its elements, as `(buffer, datatype)` argument positions: the sends and
/// receives (blocking, nonblocking, persistent, matched), `MPI_Sendrecv`
/// and the collectives' send and receive buffers. Empty for every other
/// function.
pub fn buffer_args(callee: &str) -> &'static [(usize, usize)] {
    match callee {
        "MPI_Send"
        | "MPI_Bsend"
        | "MPI_Ssend"
        | "MPI_Rsend"
        | "MPI_Isend"
        | "MPI_Ibsend"
        | "MPI_Issend"
        | "MPI_Irsend"
        | "MPI_Send_init"
        | "MPI_Bsend_init"
        | "MPI_Ssend_init"
        | "MPI_Rsend_init"
        | "MPI_Recv"
        | "MPI_Irecv"
        | "MPI_Recv_init"
        | "MPI_Mrecv"
        | "MPI_Imrecv"
        | "MPI_Sendrecv_replace"
        | "MPI_Isendrecv_replace"
        | "MPI_Bcast"
        | "MPI_Ibcast" => &[(0, 2)],
        "MPI_Sendrecv" | "MPI_Isendrecv" => &[(0, 2), (5, 7)],
        "MPI_Reduce"
        | "MPI_Ireduce"
        | "MPI_Allreduce"
        | "MPI_Iallreduce"
        | "MPI_Scan"
        | "MPI_Iscan"
        | "MPI_Exscan"
        | "MPI_Iexscan"
        | "MPI_Reduce_scatter"
        | "MPI_Ireduce_scatter"
        | "MPI_Reduce_scatter_block"
        | "MPI_Ireduce_scatter_block"
        | "MPI_Reduce_local" => &[(0, 3), (1, 3)],
        "MPI_Gather" | "MPI_Igather" | "MPI_Scatter" | "MPI_Iscatter" | "MPI_Allgather"
        | "MPI_Iallgather" | "MPI_Alltoall" | "MPI_Ialltoall" => &[(0, 2), (3, 5)],
        "MPI_Gatherv" | "MPI_Igatherv" | "MPI_Allgatherv" | "MPI_Iallgatherv" => &[(0, 2), (3, 6)],
        "MPI_Scatterv" | "MPI_Iscatterv" => &[(0, 3), (4, 6)],
        "MPI_Alltoallv" | "MPI_Ialltoallv" => &[(0, 3), (4, 7)],
        _ => &[],
    }
}

/// The argument of an MPI function where MPI writes a status, and whether
/// it is an array of statuses (whose "ignore" value is
/// `MPI_STATUSES_IGNORE` rather than `MPI_STATUS_IGNORE`): the blocking
/// receives and probes, the matched probes and receives, and the waits and
/// tests. `None` for every other function.
pub fn status_arg(callee: &str) -> Option<(usize, bool)> {
    Some(match callee {
        "MPI_Wait" => (1, false),
        "MPI_Test" | "MPI_Request_get_status" => (2, false),
        "MPI_Probe" | "MPI_Waitany" => (3, false),
        "MPI_Iprobe" | "MPI_Mprobe" | "MPI_Mrecv" | "MPI_Testany" => (4, false),
        "MPI_Improbe" => (5, false),
        "MPI_Recv" => (6, false),
        "MPI_Sendrecv_replace" => (8, false),
        "MPI_Sendrecv" => (11, false),
        "MPI_Waitall" => (2, true),
        "MPI_Testall" => (3, true),
        "MPI_Waitsome" | "MPI_Testsome" => (4, true),
        _ => return None,
    })
}

/// Every MPI call site of a program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteTable {
    pub sites: Vec<CallSite>,
}

/// Whether the path from `main` to a site depends only on things that are
/// the same in every run with the same number of processes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dependence {
    /// Only rank, size, constants and values computed from them decide
    /// whether (and how often) the site runs.
    InputIndependent,
    /// Some condition on the way depends on data: received buffers, `argv`,
    /// files, `rand`, time, ... Each reason names the condition and the
    /// source of the data, e.g. `` `if (buf[0] > 3)` at a.c:12 reads `buf`,
    /// filled by MPI_Recv at a.c:10 ``.
    DataDependent { reasons: Vec<String> },
}

/// A wildcard receive or probe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wildcard {
    pub site: u32,
    /// Its source is `MPI_ANY_SOURCE` (directly or through a variable that
    /// evidently holds it).
    pub any_source: bool,
    /// Its tag is `MPI_ANY_TAG` (likewise).
    pub any_tag: bool,
}

/// A probe with `MPI_ANY_SOURCE` and the receive that takes the message it
/// found ([`Facts::free_probes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRow {
    pub probe: u32,
    pub recv: u32,
    /// The receive's count is made from the probe's status (through
    /// `MPI_Get_count`), so it fits whichever message the probe finds.
    pub sized: bool,
    /// The receive's tag is the probe's status's (`status.MPI_TAG`, after
    /// a probe with `MPI_ANY_TAG`).
    #[serde(default)]
    pub tagged: bool,
    /// The probe's status picks one of several receives (this one among
    /// the rows of the same probe), through conditions that compare it
    /// with values fixed for the run: which receive takes a message is a
    /// function of the message, and the row must be of this probe alone.
    #[serde(default)]
    pub dispatch: bool,
}

/// What is known about a program without running it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// Every `MPI_Barrier` and `MPI_Ibarrier` site, executed or not.
    pub barriers: Vec<u32>,
    /// Every receive or probe with a wildcard source or tag.
    pub wildcards: Vec<Wildcard>,
    /// For each barrier and wildcard site: what decides whether it runs.
    pub control: Vec<(u32, Dependence)>,
    /// Barrier sites followed by a clock reading or by output: what they
    /// may order besides messages.
    pub purposes: Vec<Purpose>,
    /// Why the sequence of MPI calls a rank makes may depend on what it
    /// receives (or on other data that can differ between runs): each a
    /// condition on the way to an MPI call (or to `exit`/`abort`) or an
    /// argument that names a peer, tag, root or count, with what it reads.
    /// Empty when every rank's calls depend only on its rank, the process
    /// count, constants and the command line: then a run stands for the
    /// other orders of its exchangeable wildcard receives.
    pub steering: Vec<String>,
    /// `MPI_Waitany` sites whose index and status reach no condition on
    /// the way to an MPI call or an exit, no argument of an MPI operation
    /// and no function fib cannot see: which complete request such a call
    /// returns changes nothing another rank sees, nor which calls follow.
    pub free_waits: Vec<u32>,
    /// `MPI_Recv`, `MPI_Irecv` and `MPI_Mprobe` sites with `MPI_ANY_SOURCE`
    /// whose data and status (and every status a wait or test gives, and
    /// for a matched probe what every `MPI_Mrecv` gets) reach nothing MPI
    /// sees, as for `free_waits`: which message such a receive takes
    /// changes nothing another rank sees, nor which calls follow, even when
    /// other data steers the program.
    pub free_receives: Vec<u32>,
    /// Blocking `MPI_Probe` sites with `MPI_ANY_SOURCE` whose status reaches
    /// nothing MPI sees but the source, count and tag of one `MPI_Recv`
    /// site (`MPI_Recv(buf, n, type, status.MPI_SOURCE, ...)`), and what that
    /// receive gets nothing at all, as for `free_receives`: a row of them
    /// takes its messages as a row of wildcard receives would. Also
    /// `MPI_Mprobe` sites with `MPI_ANY_SOURCE` whose status reaches
    /// nothing but the count of one `MPI_Mrecv` site (`sized`), and what
    /// every `MPI_Mrecv` gets nothing. Sorted by probe and receive.
    #[serde(default)]
    pub free_probes: Vec<ProbeRow>,
    /// MPI call sites in code the program never runs: in functions that no
    /// call from `main` reaches, directly or not, and whose address nothing
    /// takes (a header's helpers the program does not use); a C++ member
    /// function always counts as run (an override or a destructor runs
    /// without a call that names it). A run that reaches one after all
    /// (through a call fib cannot follow, such as a function that
    /// `__attribute__((constructor))` or `dlsym` runs) still reports what
    /// it does there. Sorted ([`Analysis::is_dead`] searches it).
    #[serde(default)]
    pub dead: Vec<u32>,
    /// MPI communication sites (point-to-point and collective calls, not
    /// the local ones such as `MPI_Comm_rank`) whose running depends on
    /// the program's input, or may: the conditions on the way from `main`
    /// that read the command line, the environment, a file, the clock, a
    /// random number or the process id, and whether one reads what fib
    /// cannot place (data from another rank, a function it cannot see).
    /// A site missing here runs whatever the input. Sorted by site.
    #[serde(default)]
    pub inputs: Vec<InputGuards>,
    /// For each barrier site, the conditions on the way to it (its own,
    /// then those of the calls that reach its function), and what can
    /// change each: what a barrier that never ran waits for.
    #[serde(default)]
    pub gates: Vec<Gate>,
}

/// Where a run's values come from that the program does not fix itself
/// ([`Facts::inputs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Input {
    /// `argc` and `argv`.
    Arguments,
    /// `getenv`.
    Environment,
    /// What the program reads from a file or its standard input, and
    /// whether a file opens.
    File,
    /// A clock: `time`, `gettimeofday`, `MPI_Wtime`, ...
    Clock,
    /// `rand` and its kin.
    Random,
    /// `getpid`.
    ProcessId,
}

impl Input {
    /// How a reader names it: "the command line".
    pub fn describe(self) -> &'static str {
        match self {
            Input::Arguments => "the command line",
            Input::Environment => "the environment",
            Input::File => "what it reads from a file",
            Input::Clock => "the clock",
            Input::Random => "a random number",
            Input::ProcessId => "the process id",
        }
    }
}

/// The conditions that decide, from the input, whether one MPI call site
/// runs ([`Facts::inputs`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputGuards {
    pub site: u32,
    /// Each condition on the way that reads an input, once per input.
    pub reasons: Vec<InputReason>,
    /// Some condition on the way reads what may carry any input: data
    /// another rank sent, or what a function fib cannot see returns.
    pub open: bool,
}

/// A condition that reads an input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputReason {
    pub input: Input,
    /// The condition as written: `if (atoi(argv[1]) % 2)`.
    pub condition: String,
    /// Where it is: the file relative to the tree's root, and the line.
    pub file: PathBuf,
    pub line: u32,
    /// Where the input enters: `the command line (`argc`/`argv`)`, `the
    /// result of getenv() at a.c:5`.
    pub source: String,
}

/// What a barrier may be there for besides messages: the first call after
/// it in its function, before the next MPI communication, that reads a
/// clock or writes output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Purpose {
    /// The barrier's site.
    pub site: u32,
    pub kind: PurposeKind,
    /// The call that reads the clock or writes (`MPI_Wtime`, `printf`).
    pub callee: String,
    /// Where it is: the file relative to the tree's root, and the line.
    pub file: PathBuf,
    pub line: u32,
    /// When the clock reading or output follows not the barrier but a call
    /// of the function that ends with it (a barrier wrapper): that call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<Via>,
}

/// A call, in a caller, of the function a barrier ends (directly or
/// through other calls).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Via {
    /// The function called, as the caller names it.
    pub function: String,
    pub file: PathBuf,
    pub line: u32,
}

/// A condition that decides whether a barrier site runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gate {
    /// The barrier's site.
    pub site: u32,
    /// The condition as written (`if (debug)`).
    pub text: String,
    /// Where it is: the file relative to the tree's root, and the line.
    pub file: PathBuf,
    pub line: u32,
    pub by: GateKind,
}

/// What decides a [`Gate`]'s condition, and so what can change it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GateKind {
    /// It keeps the barrier from running in every run of this build: it
    /// reads only constants.
    Off {
        /// Why, as a phrase: "`debug` is 0 wherever it is set", "it is the
        /// constant 0".
        why: String,
        /// The macro the condition names, with where it is defined
        /// (`DEBUG`, its file relative to the root and line): a compile
        /// definition decides it.
        #[serde(default)]
        macro_def: Option<(String, PathBuf, u32)>,
        /// A definition of the variable the condition reads that the
        /// preprocessor left out.
        #[serde(default)]
        left_out: Option<LeftOut>,
    },
    /// It reads the program's input: arguments, files, received data. The
    /// reason as the control facts word it.
    Input { reason: String },
    /// It reads the rank or the process count.
    Count,
    /// It reads only constants and what is computed from them, and fib
    /// cannot tell its value.
    Fixed,
}

/// A definition the preprocessor left out of this build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// Where the definition is: the file relative to the root, the line.
    pub file: PathBuf,
    pub line: u32,
    /// The directive that leaves it out, as written (`#ifdef DEBUG`).
    pub directive: String,
    /// The compiler flag that would take it in (`-DDEBUG`), when the
    /// directive says.
    pub flag: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PurposeKind {
    /// Timing: the barrier lines the ranks up before a clock is read.
    Timing,
    /// Output: the barrier orders what ranks print or write.
    Output,
}

/// One translation unit that was parsed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub path: PathBuf,
    /// Whether it defines `main`.
    pub has_main: bool,
}

/// The result of analysing a program's translation units.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    pub sites: SiteTable,
    pub facts: Facts,
    pub units: Vec<Unit>,
    /// Every file of the checked tree that contains a site or was parsed
    /// (sources and the tree's own headers), with its text as parsed.
    pub files: Vec<(PathBuf, String)>,
    /// Every file the parses read, system headers included, by canonical
    /// path: what the result depends on besides the flags, so that it can
    /// be kept until one of them changes. `None` when libclang reported a
    /// fatal error, such as a header not found (the result may then depend
    /// on a file that does not exist).
    pub read: Option<Vec<PathBuf>>,
}

impl Analysis {
    /// Whether site `id` is in code the program never runs
    /// ([`Facts::dead`], kept sorted).
    pub fn is_dead(&self, id: u32) -> bool {
        self.facts.dead.binary_search(&id).is_ok()
    }

    /// The call sites in code the program may run, in site-table order:
    /// what the checks made before running look at.
    pub fn live_sites(&self) -> impl Iterator<Item = &CallSite> {
        self.sites.sites.iter().filter(|s| !self.is_dead(s.id))
    }

    /// What decides, from the input, whether site `id` runs
    /// ([`Facts::inputs`], kept sorted); `None` when nothing does.
    pub fn input_guards(&self, id: u32) -> Option<&InputGuards> {
        self.facts
            .inputs
            .binary_search_by_key(&id, |g| g.site)
            .ok()
            .map(|i| &self.facts.inputs[i])
    }
}
