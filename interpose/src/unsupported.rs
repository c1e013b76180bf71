//! The MPI functions fib does not model ([`fib_wire::UNSUPPORTED`]). Each is
//! defined without arguments (it never looks at them): it reports
//! [`fib_wire::Up::Unsupported`] with the current site and waits for the
//! scheduler to end the run, instead of letting MPI run a call that would
//! make the scheduler's picture of the run wrong.

use std::os::raw::c_int;

use crate::conn::log;
use crate::state::try_lib;

/// Reports the unsupported function `name` and never returns.
fn report(name: &str) -> ! {
    match try_lib() {
        Some(l) => l.unsupported(name),
        None => {
            log(&format!("{name} is not supported by fib"));
            // SAFETY: `_exit` is always safe to call.
            unsafe { libc::_exit(70) }
        }
    }
}

macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {
        $(
            #[no_mangle]
            pub extern "C" fn $name() -> c_int {
                report(stringify!($name))
            }
        )*

        /// The names defined above, to check them against the wire crate.
        #[cfg(test)]
        const NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}

unsupported!(
    MPI_Bsend,
    MPI_Rsend,
    MPI_Ibsend,
    MPI_Irsend,
    MPI_Send_init,
    MPI_Ssend_init,
    MPI_Bsend_init,
    MPI_Rsend_init,
    MPI_Recv_init,
    MPI_Start,
    MPI_Startall,
    MPI_Sendrecv_replace,
    MPI_Request_free,
    MPI_Cancel,
    MPI_Improbe,
    MPI_Mprobe,
    MPI_Mrecv,
    MPI_Imrecv,
    MPI_Gatherv,
    MPI_Scatterv,
    MPI_Allgatherv,
    MPI_Alltoallv,
    MPI_Alltoallw,
    MPI_Reduce_scatter,
    MPI_Reduce_scatter_block,
    MPI_Scan,
    MPI_Exscan,
    MPI_Ibarrier,
    MPI_Ibcast,
    MPI_Ireduce,
    MPI_Iallreduce,
    MPI_Igather,
    MPI_Iscatter,
    MPI_Iallgather,
    MPI_Ialltoall,
    MPI_Comm_create_group,
    MPI_Comm_split_type,
    MPI_Comm_idup,
    MPI_Intercomm_create,
    MPI_Intercomm_merge,
    MPI_Cart_create,
    MPI_Cart_sub,
    MPI_Graph_create,
    MPI_Dist_graph_create,
    MPI_Dist_graph_create_adjacent,
    MPI_Comm_spawn,
    MPI_Win_create,
    MPI_Win_allocate,
    MPI_Win_fence,
    MPI_Put,
    MPI_Get,
    MPI_Accumulate,
    MPI_Isendrecv,
    MPI_Isendrecv_replace,
    MPI_Request_get_status,
    MPI_Psend_init,
    MPI_Precv_init,
    MPI_Neighbor_allgather,
    MPI_Neighbor_alltoall,
    MPI_Ineighbor_allgather,
    MPI_Ineighbor_alltoall,
    MPI_Send_c,
    MPI_Ssend_c,
    MPI_Isend_c,
    MPI_Issend_c,
    MPI_Recv_c,
    MPI_Irecv_c,
    MPI_Sendrecv_c,
    MPI_Bcast_c,
    MPI_Reduce_c,
    MPI_Allreduce_c,
    MPI_Gather_c,
    MPI_Scatter_c,
    MPI_Allgather_c,
    MPI_Alltoall_c,
);

#[cfg(test)]
mod tests {
    #[test]
    fn the_unsupported_list_matches_the_wire_crate() {
        assert_eq!(super::NAMES, fib_wire::UNSUPPORTED);
    }
}
