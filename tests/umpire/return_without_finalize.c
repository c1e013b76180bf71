/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB004 */
/* The ranks exchange one message; then rank 1 returns from main without
 * calling MPI_Finalize while rank 0 finalizes. Exiting an MPI process without
 * Finalize is an error: 1 interleaving, crash attributed to rank 1. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return 0;
    }
    MPI_Finalize();
    return 0;
}
