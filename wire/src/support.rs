//! Which MPI functions fib models, which it refuses, and which it lets
//! through: the one place that decides it. The instrumentation's
//! force-included header, the interposition library's wrappers and the
//! check before running all read these lists (through [`support`]), so they
//! cannot drift apart.
//!
//! A function is *modelled* when it is in [`INTERCEPTED`]: the interposition
//! library reports it to the scheduler. It is *unsupported* when it is in
//! [`UNSUPPORTED`]: it creates or completes requests or communicators,
//! communicates, synchronises or matches messages in a way fib does not
//! model, so letting it through would make the scheduler's picture of the
//! run wrong; the interposition library defines each of them to report it
//! and stop the run. It *passes through* when it is in [`PASS_THROUGH`]: a
//! local call (ranks and sizes, clocks, datatypes, operations, groups, info
//! objects, attributes, names, error handlers, status queries, the tool
//! interface, ...) that MPI runs untouched. The three lists hold every
//! function MPICH 4.0's `mpi.h` and `mpio.h` declare (a test of the
//! interposition library checks it against the installed headers); a name
//! in none of them (from a newer MPI) is classified by its family, and is
//! unsupported unless it belongs to a family of local calls.

/// Whether fib models an MPI function, and if not, why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Support {
    /// fib models the function ([`INTERCEPTED`]).
    Modelled,
    /// fib does not model the function and must not let it through.
    Unsupported { why: Why },
    /// A local call that MPI runs untouched (or not an MPI function).
    PassThrough,
}

/// Why fib does not model an unsupported function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Why {
    /// Not modelled yet.
    NotYet,
    /// The large-count forms of one-sided communication (`MPI_Put_c`,
    /// `MPI_Win_allocate_c`, ...) and one-sided calls newer than MPI 4.0.
    OneSided,
    /// Dynamic process management (`MPI_Comm_spawn*`, `MPI_Comm_connect`,
    /// ...): out of fib's scope for now.
    DynamicProcesses,
}

/// Whether fib models the MPI function `name` (see the module's
/// documentation for the rule).
pub fn support(name: &str) -> Support {
    if INTERCEPTED.contains(&name) {
        Support::Modelled
    } else if UNSUPPORTED.contains(&name) {
        Support::Unsupported { why: why(name) }
    } else if PASS_THROUGH.contains(&name) || !name.starts_with("MPI_") || local_family(name) {
        Support::PassThrough
    } else {
        Support::Unsupported { why: why(name) }
    }
}

/// Local calls (in [`PASS_THROUGH`]) that the interposition library wraps
/// all the same, only to check the calling thread against the thread level
/// MPI provided: the ones a thread body makes most, to learn where it runs.
/// They are not reported to the scheduler.
pub const THREAD_CHECKED: &[&str] = &["MPI_Comm_rank", "MPI_Comm_size", "MPI_Get_processor_name"];

/// The one-sided operations whose names do not start with `MPI_Win_`.
const ONE_SIDED: &[&str] = &[
    "MPI_Put",
    "MPI_Get",
    "MPI_Accumulate",
    "MPI_Get_accumulate",
    "MPI_Fetch_and_op",
    "MPI_Compare_and_swap",
    "MPI_Rput",
    "MPI_Rget",
    "MPI_Raccumulate",
    "MPI_Rget_accumulate",
];

/// Dynamic process management.
const DYNAMIC_PROCESSES: &[&str] = &[
    "MPI_Comm_spawn",
    "MPI_Comm_spawn_multiple",
    "MPI_Comm_accept",
    "MPI_Comm_connect",
    "MPI_Comm_disconnect",
    "MPI_Comm_join",
    "MPI_Open_port",
    "MPI_Close_port",
    "MPI_Publish_name",
    "MPI_Unpublish_name",
    "MPI_Lookup_name",
];

/// Whether `name` is a one-sided function: a window call (`MPI_Win_*`) or
/// one of the communication calls (`MPI_Put`, ..., `MPI_Rget_accumulate`).
pub fn one_sided(name: &str) -> bool {
    name.starts_with("MPI_Win_") || ONE_SIDED.contains(&name)
}

/// Why fib does not model `name`, by its family: one-sided communication
/// and dynamic process management are out of scope, the rest is not done
/// yet. A large-count form (`MPI_Put_c`) is in its base function's family.
fn why(name: &str) -> Why {
    let base = name.strip_suffix("_c").unwrap_or(name);
    if one_sided(base) {
        Why::OneSided
    } else if base.starts_with("MPI_Comm_spawn") || DYNAMIC_PROCESSES.contains(&base) {
        Why::DynamicProcesses
    } else {
        Why::NotYet
    }
}

/// Whether a function none of the lists knows belongs to a family of
/// local calls: datatypes, info objects, status objects, groups, operations,
/// the tool interface, error handlers, handle conversions, names and
/// attributes.
fn local_family(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "MPI_Type_",
        "MPI_Info_",
        "MPI_Status_",
        "MPI_Group_",
        "MPI_Op_",
        "MPI_T_",
        "MPI_Errhandler_",
        "MPI_Error_",
    ];
    const SUFFIXES: &[&str] = &[
        "_c2f",
        "_f2c",
        "_get_name",
        "_set_name",
        "_get_attr",
        "_set_attr",
        "_delete_attr",
        "_keyval",
        "_errhandler",
    ];
    why(name) == Why::NotYet
        && (PREFIXES.iter().any(|p| name.starts_with(p))
            || SUFFIXES.iter().any(|s| name.ends_with(s)))
}

/// The MPI functions the interposition library models; each is reported to
/// the scheduler as an [`Op`](crate::Op) (or handled in the library, for
/// `MPI_Init*` and `MPI_Abort`).
pub const INTERCEPTED: &[&str] = &[
    "MPI_Init",
    "MPI_Init_thread",
    "MPI_Finalize",
    "MPI_Abort",
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Isend",
    "MPI_Issend",
    "MPI_Recv",
    "MPI_Irecv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Bsend",
    "MPI_Ibsend",
    "MPI_Rsend",
    "MPI_Irsend",
    "MPI_Buffer_attach",
    "MPI_Buffer_detach",
    "MPI_Request_free",
    "MPI_Send_init",
    "MPI_Ssend_init",
    "MPI_Bsend_init",
    "MPI_Rsend_init",
    "MPI_Recv_init",
    "MPI_Start",
    "MPI_Startall",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testany",
    "MPI_Testsome",
    "MPI_Probe",
    "MPI_Iprobe",
    "MPI_Mprobe",
    "MPI_Improbe",
    "MPI_Mrecv",
    "MPI_Imrecv",
    "MPI_Request_get_status",
    "MPI_Cancel",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Gather",
    "MPI_Scatter",
    "MPI_Allgather",
    "MPI_Alltoall",
    "MPI_Gatherv",
    "MPI_Scatterv",
    "MPI_Allgatherv",
    "MPI_Alltoallv",
    "MPI_Alltoallw",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block",
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
    "MPI_Neighbor_allgather",
    "MPI_Neighbor_allgatherv",
    "MPI_Neighbor_alltoall",
    "MPI_Neighbor_alltoallv",
    "MPI_Neighbor_alltoallw",
    "MPI_Ineighbor_allgather",
    "MPI_Ineighbor_allgatherv",
    "MPI_Ineighbor_alltoall",
    "MPI_Ineighbor_alltoallv",
    "MPI_Ineighbor_alltoallw",
    "MPI_Comm_dup",
    "MPI_Comm_dup_with_info",
    "MPI_Comm_split",
    "MPI_Comm_split_type",
    "MPI_Comm_create",
    "MPI_Comm_create_group",
    "MPI_Comm_idup",
    "MPI_Comm_idup_with_info",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Graph_create",
    "MPI_Dist_graph_create",
    "MPI_Dist_graph_create_adjacent",
    "MPI_Comm_free",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
    // Handles the program must free (tracked for leaks, `HANDLE_MAKERS`).
    "MPI_Comm_group",
    "MPI_Group_incl",
    "MPI_Group_excl",
    "MPI_Group_range_incl",
    "MPI_Group_range_excl",
    "MPI_Group_union",
    "MPI_Group_intersection",
    "MPI_Group_difference",
    "MPI_Type_contiguous",
    "MPI_Type_vector",
    "MPI_Type_create_hvector",
    "MPI_Type_indexed",
    "MPI_Type_create_hindexed",
    "MPI_Type_create_indexed_block",
    "MPI_Type_create_hindexed_block",
    "MPI_Type_create_struct",
    "MPI_Type_create_subarray",
    "MPI_Type_create_resized",
    "MPI_Type_dup",
    "MPI_Op_create",
    "MPI_Info_create",
    "MPI_Info_dup",
    "MPI_Comm_create_errhandler",
    "MPI_Group_free",
    "MPI_Type_free",
    "MPI_Op_free",
    "MPI_Info_free",
    "MPI_Errhandler_free",
    // One-sided communication.
    "MPI_Accumulate",
    "MPI_Compare_and_swap",
    "MPI_Fetch_and_op",
    "MPI_Get",
    "MPI_Get_accumulate",
    "MPI_Put",
    "MPI_Raccumulate",
    "MPI_Rget",
    "MPI_Rget_accumulate",
    "MPI_Rput",
    "MPI_Win_allocate",
    "MPI_Win_allocate_shared",
    "MPI_Win_attach",
    "MPI_Win_complete",
    "MPI_Win_create",
    "MPI_Win_create_dynamic",
    "MPI_Win_detach",
    "MPI_Win_fence",
    "MPI_Win_flush",
    "MPI_Win_flush_all",
    "MPI_Win_flush_local",
    "MPI_Win_flush_local_all",
    "MPI_Win_free",
    "MPI_Win_lock",
    "MPI_Win_lock_all",
    "MPI_Win_post",
    "MPI_Win_start",
    "MPI_Win_sync",
    // Local, but what it returns is another rank's memory of the window,
    // which memory checking watches.
    "MPI_Win_shared_query",
    "MPI_Win_test",
    "MPI_Win_unlock",
    "MPI_Win_unlock_all",
    "MPI_Win_wait",
];

/// Calls the macro named by its argument with the names of the functions
/// fib does not model, as identifiers separated by commas. This is the list
/// itself: [`UNSUPPORTED`] is made from it, and the interposition library
/// defines one wrapper per name from it, so the two cannot drift apart.
/// Each function is in MPICH's `mpi.h` or `mpio.h` and returns `int`.
#[macro_export]
macro_rules! unsupported_functions {
    ($m:ident) => {
        $m! {
            // Not supported yet.
            // Point-to-point modes and forms fib does not model.
            MPI_Bsend_c,
            MPI_Buffer_attach_c,
            MPI_Buffer_detach_c,
            MPI_Ibsend_c,
            MPI_Irsend_c,
            MPI_Isendrecv,
            MPI_Isendrecv_c,
            MPI_Isendrecv_replace,
            MPI_Isendrecv_replace_c,
            MPI_Rsend_c,
            MPI_Sendrecv_replace_c,
            // The large-count (`_c`) forms of modelled calls.
            MPI_Allgather_c,
            MPI_Allreduce_c,
            MPI_Alltoall_c,
            MPI_Bcast_c,
            MPI_Gather_c,
            MPI_Irecv_c,
            MPI_Isend_c,
            MPI_Issend_c,
            MPI_Recv_c,
            MPI_Reduce_c,
            MPI_Scatter_c,
            MPI_Send_c,
            MPI_Sendrecv_c,
            MPI_Ssend_c,
            // Persistent and partitioned point-to-point requests.
            MPI_Bsend_init_c,
            MPI_Parrived,
            MPI_Pready,
            MPI_Pready_list,
            MPI_Pready_range,
            MPI_Precv_init,
            MPI_Psend_init,
            MPI_Recv_init_c,
            MPI_Rsend_init_c,
            MPI_Send_init_c,
            MPI_Ssend_init_c,
            // Generalized requests.
            MPI_Grequest_complete,
            MPI_Grequest_start,
            // The large-count forms of the matched receives.
            MPI_Imrecv_c,
            MPI_Mrecv_c,
            // The large-count (`_c`) forms of the other modelled collectives.
            MPI_Allgatherv_c,
            MPI_Alltoallv_c,
            MPI_Alltoallw_c,
            MPI_Exscan_c,
            MPI_Gatherv_c,
            MPI_Reduce_scatter_block_c,
            MPI_Reduce_scatter_c,
            MPI_Scan_c,
            MPI_Scatterv_c,
            // The large-count (`_c`) forms of the nonblocking collectives.
            MPI_Iallgather_c,
            MPI_Iallgatherv_c,
            MPI_Iallreduce_c,
            MPI_Ialltoall_c,
            MPI_Ialltoallv_c,
            MPI_Ialltoallw_c,
            MPI_Ibcast_c,
            MPI_Iexscan_c,
            MPI_Igather_c,
            MPI_Igatherv_c,
            MPI_Ireduce_c,
            MPI_Ireduce_scatter_block_c,
            MPI_Ireduce_scatter_c,
            MPI_Iscan_c,
            MPI_Iscatter_c,
            MPI_Iscatterv_c,
            // Persistent collectives.
            MPI_Allgather_init,
            MPI_Allgather_init_c,
            MPI_Allgatherv_init,
            MPI_Allgatherv_init_c,
            MPI_Allreduce_init,
            MPI_Allreduce_init_c,
            MPI_Alltoall_init,
            MPI_Alltoall_init_c,
            MPI_Alltoallv_init,
            MPI_Alltoallv_init_c,
            MPI_Alltoallw_init,
            MPI_Alltoallw_init_c,
            MPI_Barrier_init,
            MPI_Bcast_init,
            MPI_Bcast_init_c,
            MPI_Exscan_init,
            MPI_Exscan_init_c,
            MPI_Gather_init,
            MPI_Gather_init_c,
            MPI_Gatherv_init,
            MPI_Gatherv_init_c,
            MPI_Reduce_init,
            MPI_Reduce_init_c,
            MPI_Reduce_scatter_block_init,
            MPI_Reduce_scatter_block_init_c,
            MPI_Reduce_scatter_init,
            MPI_Reduce_scatter_init_c,
            MPI_Scan_init,
            MPI_Scan_init_c,
            MPI_Scatter_init,
            MPI_Scatter_init_c,
            MPI_Scatterv_init,
            MPI_Scatterv_init_c,
            // The large-count and persistent forms of the neighbourhood collectives.
            MPI_Ineighbor_allgather_c,
            MPI_Ineighbor_allgatherv_c,
            MPI_Ineighbor_alltoall_c,
            MPI_Ineighbor_alltoallv_c,
            MPI_Ineighbor_alltoallw_c,
            MPI_Neighbor_allgather_c,
            MPI_Neighbor_allgather_init,
            MPI_Neighbor_allgather_init_c,
            MPI_Neighbor_allgatherv_c,
            MPI_Neighbor_allgatherv_init,
            MPI_Neighbor_allgatherv_init_c,
            MPI_Neighbor_alltoall_c,
            MPI_Neighbor_alltoall_init,
            MPI_Neighbor_alltoall_init_c,
            MPI_Neighbor_alltoallv_c,
            MPI_Neighbor_alltoallv_init,
            MPI_Neighbor_alltoallv_init_c,
            MPI_Neighbor_alltoallw_c,
            MPI_Neighbor_alltoallw_init,
            MPI_Neighbor_alltoallw_init_c,
            // Communicator constructors fib does not model (collective), and `MPI_Comm_set_info` (collective).
            MPI_Comm_create_from_group,
            MPI_Comm_set_info,
            MPI_Intercomm_create_from_groups,
            // Sessions: another way to start and end MPI than `MPI_Init` and `MPI_Finalize`.
            MPI_Session_finalize,
            MPI_Session_init,
            // File I/O: opening, closing and the collective, shared-pointer and nonblocking operations.
            MPI_File_close,
            MPI_File_iread,
            MPI_File_iread_all,
            MPI_File_iread_all_c,
            MPI_File_iread_at,
            MPI_File_iread_at_all,
            MPI_File_iread_at_all_c,
            MPI_File_iread_at_c,
            MPI_File_iread_c,
            MPI_File_iread_shared,
            MPI_File_iread_shared_c,
            MPI_File_iwrite,
            MPI_File_iwrite_all,
            MPI_File_iwrite_all_c,
            MPI_File_iwrite_at,
            MPI_File_iwrite_at_all,
            MPI_File_iwrite_at_all_c,
            MPI_File_iwrite_at_c,
            MPI_File_iwrite_c,
            MPI_File_iwrite_shared,
            MPI_File_iwrite_shared_c,
            MPI_File_open,
            MPI_File_preallocate,
            MPI_File_read_all,
            MPI_File_read_all_begin,
            MPI_File_read_all_begin_c,
            MPI_File_read_all_c,
            MPI_File_read_all_end,
            MPI_File_read_at_all,
            MPI_File_read_at_all_begin,
            MPI_File_read_at_all_begin_c,
            MPI_File_read_at_all_c,
            MPI_File_read_at_all_end,
            MPI_File_read_ordered,
            MPI_File_read_ordered_begin,
            MPI_File_read_ordered_begin_c,
            MPI_File_read_ordered_c,
            MPI_File_read_ordered_end,
            MPI_File_read_shared,
            MPI_File_read_shared_c,
            MPI_File_seek_shared,
            MPI_File_set_atomicity,
            MPI_File_set_info,
            MPI_File_set_size,
            MPI_File_set_view,
            MPI_File_sync,
            MPI_File_write_all,
            MPI_File_write_all_begin,
            MPI_File_write_all_begin_c,
            MPI_File_write_all_c,
            MPI_File_write_all_end,
            MPI_File_write_at_all,
            MPI_File_write_at_all_begin,
            MPI_File_write_at_all_begin_c,
            MPI_File_write_at_all_c,
            MPI_File_write_at_all_end,
            MPI_File_write_ordered,
            MPI_File_write_ordered_begin,
            MPI_File_write_ordered_begin_c,
            MPI_File_write_ordered_c,
            MPI_File_write_ordered_end,
            MPI_File_write_shared,
            MPI_File_write_shared_c,
            // The large-count forms of one-sided communication.
            MPI_Accumulate_c,
            MPI_Get_accumulate_c,
            MPI_Get_c,
            MPI_Put_c,
            MPI_Raccumulate_c,
            MPI_Rget_accumulate_c,
            MPI_Rget_c,
            MPI_Rput_c,
            MPI_Win_allocate_c,
            MPI_Win_allocate_shared_c,
            MPI_Win_create_c,
            MPI_Win_shared_query_c,
            // Dynamic process management: out of scope for now.
            MPI_Close_port,
            MPI_Comm_accept,
            MPI_Comm_connect,
            MPI_Comm_disconnect,
            MPI_Comm_join,
            MPI_Comm_spawn,
            MPI_Comm_spawn_multiple,
            MPI_Lookup_name,
            MPI_Open_port,
            MPI_Publish_name,
            MPI_Unpublish_name,
        }
    };
}

macro_rules! name_list {
    ($($name:ident),* $(,)?) => {
        /// MPI functions that create or complete requests or communicators,
        /// communicate, synchronise or match messages in ways fib does not
        /// model (see [`unsupported_functions!`], where the list is written).
        /// The interposition library reports a call to any of them as
        /// [`Up::Unsupported`](crate::Up::Unsupported) instead of letting it
        /// through, because letting it through would make the scheduler's
        /// picture of the run wrong; the check before running refuses a
        /// program that calls one of them anywhere.
        pub const UNSUPPORTED: &[&str] = &[$(stringify!($name)),*];
    };
}

unsupported_functions!(name_list);

/// Local MPI functions that MPI runs untouched under fib: they neither
/// communicate nor create or complete requests or communicators.
pub const PASS_THROUGH: &[&str] = &[
    "MPI_Add_error_class",
    "MPI_Add_error_code",
    "MPI_Add_error_string",
    "MPI_Address",
    "MPI_Aint_add",
    "MPI_Aint_diff",
    "MPI_Alloc_mem",
    "MPI_Attr_delete",
    "MPI_Attr_get",
    "MPI_Attr_put",
    "MPI_Cart_coords",
    "MPI_Cart_get",
    "MPI_Cart_map",
    "MPI_Cart_rank",
    "MPI_Cart_shift",
    "MPI_Cartdim_get",
    "MPI_Comm_call_errhandler",
    "MPI_Comm_compare",
    "MPI_Comm_create_keyval",
    "MPI_Comm_delete_attr",
    "MPI_Comm_free_keyval",
    "MPI_Comm_get_attr",
    "MPI_Comm_get_errhandler",
    "MPI_Comm_get_info",
    "MPI_Comm_get_name",
    "MPI_Comm_get_parent",
    "MPI_Comm_rank",
    "MPI_Comm_remote_group",
    "MPI_Comm_remote_size",
    "MPI_Comm_set_attr",
    "MPI_Comm_set_errhandler",
    "MPI_Comm_set_name",
    "MPI_Comm_size",
    "MPI_Comm_test_inter",
    "MPI_DUP_FN",
    "MPI_Dims_create",
    "MPI_Dist_graph_neighbors",
    "MPI_Dist_graph_neighbors_count",
    "MPI_Errhandler_create",
    "MPI_Errhandler_get",
    "MPI_Errhandler_set",
    "MPI_Error_class",
    "MPI_Error_string",
    "MPI_File_c2f",
    "MPI_File_call_errhandler",
    "MPI_File_create_errhandler",
    "MPI_File_delete",
    "MPI_File_f2c",
    "MPI_File_get_amode",
    "MPI_File_get_atomicity",
    "MPI_File_get_byte_offset",
    "MPI_File_get_errhandler",
    "MPI_File_get_group",
    "MPI_File_get_info",
    "MPI_File_get_position",
    "MPI_File_get_position_shared",
    "MPI_File_get_size",
    "MPI_File_get_type_extent",
    "MPI_File_get_type_extent_c",
    "MPI_File_get_view",
    "MPI_File_read",
    "MPI_File_read_at",
    "MPI_File_read_at_c",
    "MPI_File_read_c",
    "MPI_File_seek",
    "MPI_File_set_errhandler",
    "MPI_File_write",
    "MPI_File_write_at",
    "MPI_File_write_at_c",
    "MPI_File_write_c",
    "MPI_Finalized",
    "MPI_Free_mem",
    "MPI_Get_address",
    "MPI_Get_count",
    "MPI_Get_count_c",
    "MPI_Get_elements",
    "MPI_Get_elements_c",
    "MPI_Get_elements_x",
    "MPI_Get_library_version",
    "MPI_Get_processor_name",
    "MPI_Get_version",
    "MPI_Graph_get",
    "MPI_Graph_map",
    "MPI_Graph_neighbors",
    "MPI_Graph_neighbors_count",
    "MPI_Graphdims_get",
    "MPI_Group_compare",
    "MPI_Group_from_session_pset",
    "MPI_Group_rank",
    "MPI_Group_size",
    "MPI_Group_translate_ranks",
    "MPI_Info_c2f",
    "MPI_Info_create_env",
    "MPI_Info_delete",
    "MPI_Info_f2c",
    "MPI_Info_get",
    "MPI_Info_get_nkeys",
    "MPI_Info_get_nthkey",
    "MPI_Info_get_string",
    "MPI_Info_get_valuelen",
    "MPI_Info_set",
    "MPI_Initialized",
    "MPI_Is_thread_main",
    "MPI_Keyval_create",
    "MPI_Keyval_free",
    "MPI_Op_commutative",
    "MPI_Op_create_c",
    "MPI_Pack",
    "MPI_Pack_c",
    "MPI_Pack_external",
    "MPI_Pack_external_c",
    "MPI_Pack_external_size",
    "MPI_Pack_external_size_c",
    "MPI_Pack_size",
    "MPI_Pack_size_c",
    "MPI_Pcontrol",
    "MPI_Query_thread",
    "MPI_Reduce_local",
    "MPI_Reduce_local_c",
    "MPI_Register_datarep",
    "MPI_Register_datarep_c",
    "MPI_Session_call_errhandler",
    "MPI_Session_create_errhandler",
    "MPI_Session_get_errhandler",
    "MPI_Session_get_info",
    "MPI_Session_get_nth_pset",
    "MPI_Session_get_num_psets",
    "MPI_Session_get_pset_info",
    "MPI_Session_set_errhandler",
    "MPI_Status_c2f",
    "MPI_Status_c2f08",
    "MPI_Status_f082c",
    "MPI_Status_f082f",
    "MPI_Status_f2c",
    "MPI_Status_f2f08",
    "MPI_Status_set_cancelled",
    "MPI_Status_set_elements",
    "MPI_Status_set_elements_x",
    "MPI_T_category_changed",
    "MPI_T_category_get_categories",
    "MPI_T_category_get_cvars",
    "MPI_T_category_get_events",
    "MPI_T_category_get_index",
    "MPI_T_category_get_info",
    "MPI_T_category_get_num",
    "MPI_T_category_get_num_events",
    "MPI_T_category_get_pvars",
    "MPI_T_cvar_get_index",
    "MPI_T_cvar_get_info",
    "MPI_T_cvar_get_num",
    "MPI_T_cvar_handle_alloc",
    "MPI_T_cvar_handle_free",
    "MPI_T_cvar_read",
    "MPI_T_cvar_write",
    "MPI_T_enum_get_info",
    "MPI_T_enum_get_item",
    "MPI_T_event_callback_get_info",
    "MPI_T_event_callback_set_info",
    "MPI_T_event_copy",
    "MPI_T_event_get_index",
    "MPI_T_event_get_info",
    "MPI_T_event_get_num",
    "MPI_T_event_get_source",
    "MPI_T_event_get_timestamp",
    "MPI_T_event_handle_alloc",
    "MPI_T_event_handle_free",
    "MPI_T_event_handle_get_info",
    "MPI_T_event_handle_set_info",
    "MPI_T_event_read",
    "MPI_T_event_register_callback",
    "MPI_T_event_set_dropped_handler",
    "MPI_T_finalize",
    "MPI_T_init_thread",
    "MPI_T_pvar_get_index",
    "MPI_T_pvar_get_info",
    "MPI_T_pvar_get_num",
    "MPI_T_pvar_handle_alloc",
    "MPI_T_pvar_handle_free",
    "MPI_T_pvar_read",
    "MPI_T_pvar_readreset",
    "MPI_T_pvar_reset",
    "MPI_T_pvar_session_create",
    "MPI_T_pvar_session_free",
    "MPI_T_pvar_start",
    "MPI_T_pvar_stop",
    "MPI_T_pvar_write",
    "MPI_T_source_get_info",
    "MPI_T_source_get_num",
    "MPI_T_source_get_timestamp",
    "MPI_Test_cancelled",
    "MPI_Topo_test",
    "MPI_Type_commit",
    "MPI_Type_contiguous_c",
    "MPI_Type_create_darray",
    "MPI_Type_create_darray_c",
    "MPI_Type_create_f90_complex",
    "MPI_Type_create_f90_integer",
    "MPI_Type_create_f90_real",
    "MPI_Type_create_hindexed_block_c",
    "MPI_Type_create_hindexed_c",
    "MPI_Type_create_hvector_c",
    "MPI_Type_create_indexed_block_c",
    "MPI_Type_create_keyval",
    "MPI_Type_create_resized_c",
    "MPI_Type_create_struct_c",
    "MPI_Type_create_subarray_c",
    "MPI_Type_delete_attr",
    "MPI_Type_extent",
    "MPI_Type_free_keyval",
    "MPI_Type_get_attr",
    "MPI_Type_get_contents",
    "MPI_Type_get_contents_c",
    "MPI_Type_get_envelope",
    "MPI_Type_get_envelope_c",
    "MPI_Type_get_extent",
    "MPI_Type_get_extent_c",
    "MPI_Type_get_extent_x",
    "MPI_Type_get_name",
    "MPI_Type_get_true_extent",
    "MPI_Type_get_true_extent_c",
    "MPI_Type_get_true_extent_x",
    "MPI_Type_hindexed",
    "MPI_Type_hvector",
    "MPI_Type_indexed_c",
    "MPI_Type_lb",
    "MPI_Type_match_size",
    "MPI_Type_set_attr",
    "MPI_Type_set_name",
    "MPI_Type_size",
    "MPI_Type_size_c",
    "MPI_Type_size_x",
    "MPI_Type_struct",
    "MPI_Type_ub",
    "MPI_Type_vector_c",
    "MPI_Unpack",
    "MPI_Unpack_c",
    "MPI_Unpack_external",
    "MPI_Unpack_external_c",
    // Keyvals and error handlers for windows are made without a window.
    "MPI_Win_create_errhandler",
    "MPI_Win_create_keyval",
    "MPI_Win_free_keyval",
    "MPI_Wtick",
    "MPI_Wtime",
    // Local queries and settings of a window.
    "MPI_Win_call_errhandler",
    "MPI_Win_delete_attr",
    "MPI_Win_get_attr",
    "MPI_Win_get_errhandler",
    "MPI_Win_get_group",
    "MPI_Win_get_info",
    "MPI_Win_get_name",
    "MPI_Win_set_attr",
    "MPI_Win_set_errhandler",
    "MPI_Win_set_info",
    "MPI_Win_set_name",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn unsupported(why: Why) -> Support {
        Support::Unsupported { why }
    }

    #[test]
    fn every_name_is_in_one_list_once() {
        let mut all: Vec<&str> = INTERCEPTED
            .iter()
            .chain(UNSUPPORTED)
            .chain(PASS_THROUGH)
            .copied()
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a name is listed twice");
        assert!(all.iter().all(|n| n.starts_with("MPI_")));
    }

    #[test]
    fn modelled_calls_are_the_intercepted_ones() {
        for name in [
            "MPI_Send",
            "MPI_Waitany",
            "MPI_Comm_dup",
            "MPI_Abort",
            "MPI_Gatherv",
            "MPI_Exscan",
            "MPI_Reduce_scatter_block",
            "MPI_Cart_create",
            "MPI_Cart_sub",
            "MPI_Comm_split_type",
            "MPI_Comm_dup_with_info",
            "MPI_Bsend",
            "MPI_Irsend",
            "MPI_Sendrecv_replace",
            "MPI_Buffer_attach",
            "MPI_Request_free",
            "MPI_Recv_init",
            "MPI_Startall",
            "MPI_Ibarrier",
            "MPI_Mprobe",
            "MPI_Improbe",
            "MPI_Mrecv",
            "MPI_Imrecv",
            "MPI_Request_get_status",
            "MPI_Cancel",
            "MPI_Iscan",
            "MPI_Ialltoallw",
            "MPI_Ireduce_scatter_block",
            "MPI_Neighbor_alltoall",
            "MPI_Ineighbor_alltoallw",
            "MPI_Comm_idup",
            "MPI_Comm_idup_with_info",
            "MPI_Comm_create_group",
            "MPI_Intercomm_create",
            "MPI_Intercomm_merge",
        ] {
            assert_eq!(support(name), Support::Modelled, "{name}");
        }
    }

    #[test]
    fn calls_that_communicate_match_or_create_are_unsupported() {
        for name in [
            "MPI_Bsend_c",
            "MPI_Buffer_attach_c",
            "MPI_Iscan_c",
            "MPI_Scan_c",
            "MPI_Neighbor_alltoall_c",
            "MPI_Send_init_c",
            "MPI_Psend_init",
            "MPI_Grequest_start",
            "MPI_Mrecv_c",
            "MPI_Gatherv_c",
            "MPI_Ibcast_c",
            "MPI_Bcast_init",
            "MPI_Neighbor_alltoall_init",
            "MPI_Ineighbor_allgather_c",
            "MPI_Comm_create_from_group",
            "MPI_Intercomm_create_from_groups",
            "MPI_File_open",
            "MPI_File_write_all",
            "MPI_File_iread",
            "MPI_Send_c",
        ] {
            assert_eq!(support(name), unsupported(Why::NotYet), "{name}");
        }
    }

    #[test]
    fn one_sided_is_modelled_but_its_large_count_forms_and_spawn_are_not() {
        for name in [
            "MPI_Win_create",
            "MPI_Win_allocate_shared",
            "MPI_Win_create_dynamic",
            "MPI_Win_fence",
            "MPI_Win_free",
            "MPI_Win_lock_all",
            "MPI_Win_flush_local_all",
            "MPI_Win_test",
            "MPI_Put",
            "MPI_Get",
            "MPI_Accumulate",
            "MPI_Rput",
            "MPI_Rget_accumulate",
            "MPI_Compare_and_swap",
            "MPI_Fetch_and_op",
            "MPI_Get_accumulate",
        ] {
            assert_eq!(support(name), Support::Modelled, "{name}");
        }
        assert_eq!(support("MPI_Win_shared_query"), Support::Modelled);
        for name in ["MPI_Win_get_group", "MPI_Win_set_name"] {
            assert_eq!(support(name), Support::PassThrough, "{name}");
        }
        for name in ["MPI_Put_c", "MPI_Win_allocate_c", "MPI_Win_shared_query_c"] {
            assert_eq!(support(name), unsupported(Why::OneSided), "{name}");
        }
        for name in [
            "MPI_Comm_spawn",
            "MPI_Comm_spawn_multiple",
            "MPI_Comm_connect",
        ] {
            assert_eq!(support(name), unsupported(Why::DynamicProcesses), "{name}");
        }
    }

    #[test]
    fn local_calls_pass_through() {
        for name in [
            "MPI_Comm_rank",
            "MPI_Comm_size",
            "MPI_Wtime",
            "MPI_Wtick",
            "MPI_Get_count",
            "MPI_Type_commit",
            "MPI_Get_processor_name",
            "MPI_Error_string",
            "MPI_Initialized",
            "MPI_Finalized",
            "MPI_Query_thread",
            "MPI_Get_version",
            "MPI_Info_set",
            "MPI_Comm_get_attr",
            "MPI_Comm_set_name",
            "MPI_Comm_set_errhandler",
            "MPI_Pcontrol",
            "MPI_Reduce_local",
            "MPI_Test_cancelled",
            "MPI_Cart_shift",
            "MPI_Win_create_keyval",
            "MPI_Win_free_keyval",
        ] {
            assert_eq!(support(name), Support::PassThrough, "{name}");
        }
    }

    #[test]
    fn handle_makers_and_their_frees_are_modelled() {
        // The interposition library tracks them for leaks (FIB028).
        for (name, kind) in crate::HANDLE_MAKERS {
            assert_eq!(support(name), Support::Modelled, "{name}");
            assert_eq!(support(kind.free_call()), Support::Modelled, "{name}");
        }
        assert_eq!(support("MPI_Type_commit"), Support::PassThrough);
    }

    #[test]
    fn no_pass_through_name_reads_like_communication() {
        const WORDS: &[&str] = &[
            "send", "recv", "probe", "barrier", "bcast", "gather", "scatter", "alltoall", "scan",
            "wait", "start", "_init", "spawn", "win_", "put", "request",
        ];
        // Local calls whose names contain one of the words.
        const LOCAL: &[&str] = &[
            "MPI_Reduce_local",
            "MPI_Reduce_local_c",
            "MPI_Initialized",
            "MPI_T_init_thread",
            "MPI_T_pvar_start",
            "MPI_Attr_put",
            // Made without a window.
            "MPI_Win_create_errhandler",
            "MPI_Win_create_keyval",
            "MPI_Win_free_keyval",
            // Local queries and settings of a window.
            "MPI_Win_call_errhandler",
            "MPI_Win_delete_attr",
            "MPI_Win_get_attr",
            "MPI_Win_get_errhandler",
            "MPI_Win_get_group",
            "MPI_Win_get_info",
            "MPI_Win_get_name",
            "MPI_Win_set_attr",
            "MPI_Win_set_errhandler",
            "MPI_Win_set_info",
            "MPI_Win_set_name",
            "MPI_Win_shared_query",
        ];
        let reads_like = |name: &&&str| {
            let lower = name.to_lowercase();
            lower.contains("reduce") || WORDS.iter().any(|w| lower.contains(w))
        };
        let found: Vec<_> = PASS_THROUGH
            .iter()
            .filter(|n| !LOCAL.contains(n))
            .filter(reads_like)
            .collect();
        assert!(found.is_empty(), "{found:?} pass through");
    }

    #[test]
    fn a_name_no_list_knows_is_judged_by_its_family() {
        // Families of local calls pass through.
        for name in [
            "MPI_Type_create_new",
            "MPI_Info_get_more",
            "MPI_Comm_get_name2_c2f",
        ] {
            assert_eq!(support(name), Support::PassThrough, "{name}");
        }
        // One-sided and spawn stay out of scope, whatever the suffix.
        assert_eq!(support("MPI_Win_get_name"), Support::PassThrough);
        assert_eq!(support("MPI_Win_new_sync"), unsupported(Why::OneSided));
        assert_eq!(
            support("MPI_Comm_spawn_new"),
            unsupported(Why::DynamicProcesses)
        );
        // Anything else fib does not know is not let through.
        for name in ["MPI_Isendrecv_new", "MPI_Allreduce_new", "MPI_Frobnicate"] {
            assert_eq!(support(name), unsupported(Why::NotYet), "{name}");
        }
        // Not MPI at all.
        assert_eq!(support("printf"), Support::PassThrough);
    }

    #[test]
    fn no_unsupported_name_falls_in_a_family_of_local_calls() {
        for name in UNSUPPORTED {
            assert!(!local_family(name), "{name}");
        }
    }

    #[test]
    fn the_thread_checked_calls_pass_through() {
        for name in THREAD_CHECKED {
            assert_eq!(support(name), Support::PassThrough, "{name}");
            assert!(PASS_THROUGH.contains(name), "{name}");
        }
    }
}
