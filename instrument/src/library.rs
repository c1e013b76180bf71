//! What fib knows of the functions a program calls but does not define:
//! MPI's outputs and local calls, and the C library's sources of outside
//! data, pure functions, allocators, copiers, readers and writers of files,
//! and exits. The static facts ([`crate::facts`]) and the flow of a call's
//! outputs ([`crate::flow`]) both read these lists.

use crate::ir::{CallInfo, Ir};

/// Library functions whose results are data from outside the program.
pub(crate) const SOURCES: &[&str] = &[
    "rand",
    "random",
    "rand_r",
    "drand48",
    "erand48",
    "lrand48",
    "nrand48",
    "mrand48",
    "jrand48",
    "time",
    "clock",
    "gettimeofday",
    "clock_gettime",
    "getenv",
    "secure_getenv",
    "getpid",
    "MPI_Wtime",
    "MPI_Wtick",
    "fgetc",
    "getc",
    "getchar",
    "scanf",
    "fscanf",
    "sscanf",
    "fread",
    "fgets",
    "gets",
    "read",
    "getline",
    "recv",
    "fopen",
    "open",
];

/// Functions whose result depends only on their arguments.
pub(crate) const PURE: &[&str] = &[
    "atoi", "atol", "atoll", "atof", "strtol", "strtoul", "strtoll", "strtoull", "strtod",
    "strtof", "abs", "labs", "llabs", "fabs", "sqrt", "pow", "floor", "ceil", "log", "log2",
    "log10", "exp", "fmin", "fmax", "round", "lround", "sin", "cos", "tan", "strlen", "strcmp",
    "strncmp", "min", "max", "isqrt",
];

/// Library functions that hand out memory: what they return is a new place,
/// whatever size was asked for, and they write nothing the program had.
pub(crate) const ALLOCATORS: &[&str] = &["malloc", "calloc", "realloc", "aligned_alloc"];

/// Library functions that read from outside into the places they are given.
pub(crate) const READERS: &[&str] = &[
    "scanf", "fscanf", "fread", "fgets", "gets", "read", "getline", "recv", "pread", "fgetc",
];

/// Library functions that copy their other arguments into the first.
pub(crate) const COPIERS: &[&str] = &[
    "memcpy", "memmove", "memset", "strcpy", "strncpy", "strcat", "strncat", "sprintf", "snprintf",
    "sscanf", "bzero",
];

/// Library functions that write nothing through their pointer arguments.
pub(crate) const NO_WRITE: &[&str] = &[
    "printf",
    "fprintf",
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "fflush",
    "free",
    "perror",
    "fclose",
    "assert",
    "__assert_fail",
    "fwrite",
    "write",
    "exit",
    "abort",
];

/// Library functions that write to a stream or a file, or move its
/// position, and nothing the program holds: what they are given reaches the
/// file ([`FILES`]) and no further, unless the program reads it back.
pub(crate) const FILE_WRITERS: &[&str] = &[
    "fprintf",
    "vfprintf",
    "fputs",
    "fputc",
    "putc",
    "fwrite",
    "write",
    "pwrite",
    "fseek",
    "fseeko",
    "fsetpos",
    "rewind",
    "lseek",
    "ftruncate",
    "fflush",
    "fclose",
    "fopen",
    "close",
];

/// Library functions that read a file into the places they are given.
pub(crate) const FILE_READERS: &[&str] = &[
    "fscanf", "fread", "fgets", "read", "getline", "pread", "fgetpos",
];

/// MPI outputs that hold data another rank sent or the run's timing:
/// (function, argument index, what it is).
pub(crate) const MPI_DATA_OUT: &[(&str, usize, &str)] = &[
    ("MPI_Recv", 0, "filled by"),
    ("MPI_Recv", 6, "the status of"),
    ("MPI_Irecv", 0, "filled by"),
    ("MPI_Sendrecv", 5, "filled by"),
    ("MPI_Sendrecv", 11, "the status of"),
    ("MPI_Sendrecv_replace", 0, "filled by"),
    ("MPI_Sendrecv_replace", 8, "the status of"),
    ("MPI_Recv_init", 0, "filled by"),
    ("MPI_Bcast", 0, "filled by"),
    ("MPI_Ibcast", 0, "filled by"),
    ("MPI_Reduce", 1, "filled by"),
    ("MPI_Ireduce", 1, "filled by"),
    ("MPI_Allreduce", 1, "filled by"),
    ("MPI_Iallreduce", 1, "filled by"),
    ("MPI_Scan", 1, "filled by"),
    ("MPI_Exscan", 1, "filled by"),
    ("MPI_Reduce_scatter", 1, "filled by"),
    ("MPI_Reduce_scatter_block", 1, "filled by"),
    ("MPI_Gather", 3, "filled by"),
    ("MPI_Igather", 3, "filled by"),
    ("MPI_Gatherv", 3, "filled by"),
    ("MPI_Scatter", 3, "filled by"),
    ("MPI_Iscatter", 3, "filled by"),
    ("MPI_Scatterv", 4, "filled by"),
    ("MPI_Allgather", 3, "filled by"),
    ("MPI_Iallgather", 3, "filled by"),
    ("MPI_Allgatherv", 3, "filled by"),
    ("MPI_Alltoall", 3, "filled by"),
    ("MPI_Ialltoall", 3, "filled by"),
    ("MPI_Alltoallv", 4, "filled by"),
    ("MPI_Wait", 1, "the status of"),
    ("MPI_Waitall", 2, "the statuses of"),
    ("MPI_Waitany", 2, "the index from"),
    ("MPI_Waitany", 3, "the status of"),
    ("MPI_Waitsome", 2, "the count from"),
    ("MPI_Waitsome", 3, "the indices from"),
    ("MPI_Waitsome", 4, "the statuses of"),
    ("MPI_Test", 1, "the flag of"),
    ("MPI_Test", 2, "the status of"),
    ("MPI_Testall", 2, "the flag of"),
    ("MPI_Testany", 2, "the index from"),
    ("MPI_Testany", 3, "the flag of"),
    ("MPI_Testsome", 2, "the count from"),
    ("MPI_Probe", 3, "the status of"),
    ("MPI_Iprobe", 3, "the flag of"),
    ("MPI_Iprobe", 4, "the status of"),
    ("MPI_Mprobe", 4, "the status of"),
    ("MPI_Improbe", 4, "the flag of"),
    ("MPI_Improbe", 5, "the status of"),
    ("MPI_Mrecv", 0, "filled by"),
    ("MPI_Mrecv", 4, "the status of"),
    ("MPI_Get_count", 2, "the count from"),
    ("MPI_Get_elements", 2, "the count from"),
    ("MPI_Get_elements_x", 2, "the count from"),
    ("MPI_Test_cancelled", 1, "the flag from"),
];

/// MPI calls that only read a status: what they write carries what the
/// status (their first argument) does, as well as being data itself.
pub(crate) const STATUS_READERS: &[&str] = &[
    "MPI_Get_count",
    "MPI_Get_elements",
    "MPI_Get_elements_x",
    "MPI_Test_cancelled",
];

/// MPI calls that are no operation of another rank's concern: they
/// answer from the calling process alone (so do the [`STATUS_READERS`]).
pub(crate) const LOCAL_MPI: &[&str] = &[
    "MPI_Wtime",
    "MPI_Wtick",
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Type_size",
    "MPI_Error_string",
    "MPI_Error_class",
    "MPI_Get_processor_name",
    "MPI_Initialized",
    "MPI_Finalized",
];

/// Calls that end the process: the conditions around them steer the run.
pub(crate) const EXITS: &[&str] = &[
    "exit",
    "_exit",
    "abort",
    "quick_exit",
    "__assert_fail",
    "assert",
];

/// The root a [`MPI_DATA_OUT`] output is tainted with.
pub(crate) fn data_out_root(what: &str, callee: &str, at: &str) -> String {
    format!("{what} {callee} at {at}")
}

/// Whether an MPI function's first argument is data it sends (a send's or
/// a collective's buffer).
pub(crate) fn sends_data(name: &str) -> bool {
    name.starts_with("MPI_Sendrecv")
        || ![
            "Wait", "Test", "Cancel", "Request", "Start", "Probe", "probe", "Comm", "Type",
            "Group", "Recv", "Op_", "Get_", "Buffer", "Finalize", "Init", "Abort",
        ]
        .iter()
        .any(|k| name.contains(k))
}

/// Whether fib knows what a call of a function other than MPI does with
/// its arguments: the program's own, or a library function it lists.
pub(crate) fn seen_function(ir: &Ir, c: &CallInfo) -> bool {
    let name = c.callee.as_str();
    c.callee_usr
        .as_ref()
        .is_some_and(|u| ir.funcs.contains_key(u))
        || [PURE, NO_WRITE, COPIERS, READERS, ALLOCATORS, FILE_WRITERS]
            .iter()
            .any(|l| l.contains(&name))
}
