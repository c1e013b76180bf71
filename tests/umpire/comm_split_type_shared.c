/* fib-test: nprocs=3 outcome=ok interleavings=1 probes=1 codes=- */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 1 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
/* MPI_Comm_split_type with MPI_COMM_TYPE_SHARED on ranks 0 and 1 (keys
 * reversed, so world rank 1 is rank 0 of the new communicator) and
 * MPI_UNDEFINED on rank 2, which gets MPI_COMM_NULL. All ranks run on one
 * node, so the node communicator holds ranks 0 and 1. On it, world rank 1
 * receives from MPI_ANY_SOURCE twice: once from world rank 0, once from
 * itself through a nonblocking send. The first wildcard can take either
 * message: 2 interleavings, both complete. Then MPI_Comm_dup_with_info
 * duplicates the node communicator and MPI_Bcast runs on the duplicate. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, node_rank, node_size, v;
    MPI_Comm node = MPI_COMM_NULL, dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    assert(size == 3);
    MPI_Comm_split_type(MPI_COMM_WORLD,
                        rank < 2 ? MPI_COMM_TYPE_SHARED : MPI_UNDEFINED, -rank,
                        MPI_INFO_NULL, &node);
    if (rank == 2) {
        assert(node == MPI_COMM_NULL);
    } else {
        MPI_Comm_rank(node, &node_rank);
        MPI_Comm_size(node, &node_size);
        assert(node_size == 2 && node_rank == 1 - rank);
        if (node_rank == 0) {
            MPI_Request req;
            int got, seen = 0;
            MPI_Isend(&node_rank, 1, MPI_INT, 0, 0, node, &req);
            for (int i = 0; i < 2; i++) {
                MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 0, node,
                         MPI_STATUS_IGNORE);
                seen |= 1 << got;
            }
            assert(seen == 3);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(&node_rank, 1, MPI_INT, 0, 0, node);
        }
        MPI_Comm_dup_with_info(node, MPI_INFO_NULL, &dup);
        v = node_rank == 0 ? 42 : 0;
        MPI_Bcast(&v, 1, MPI_INT, 0, dup);
        assert(v == 42);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&node);
    }
    MPI_Finalize();
    return 0;
}
