/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Rank 0 receives from MPI_ANY_SOURCE on a duplicate of MPI_COMM_WORLD, then
 * from rank 1 on MPI_COMM_WORLD. Rank 1 sends on MPI_COMM_WORLD, rank 2 on the
 * duplicate, same tag. Messages on different communicators never match, so the
 * wildcard has only rank 2 as a candidate: 1 interleaving, no deadlock. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Comm dup;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, dup, &st);
        assert(st.MPI_SOURCE == 2);
        MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf == 1);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, dup);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
