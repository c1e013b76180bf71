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
    /// Its buffer arguments whose elements are a C struct, with the
    /// struct's layout, for the check of a struct datatype against it
    /// (FIB041). Empty for a call produced by a macro.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub structs: Vec<StructBuffer>,
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
    /// be kept until one of them changes. `None` when libclang reported an
    /// error (the result may then depend on a file that does not exist).
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
}
