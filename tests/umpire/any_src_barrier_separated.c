/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB015 */
/* Rank 0 does a blocking MPI_ANY_SOURCE receive, a barrier, and a second
 * wildcard receive. Rank 1 sends before the barrier, rank 2 after it. When
 * the first wildcard is decided rank 2 is held in the barrier, so only rank 1
 * can match it; after the barrier only rank 2's message remains. Here the
 * barrier really does separate the senders: 1 interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        assert(st.MPI_SOURCE == 1);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        assert(st.MPI_SOURCE == 2);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
