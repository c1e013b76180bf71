/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 0 does two MPI_ANY_SOURCE receives but only rank 1 sends (once); rank 2
 * goes straight to MPI_Finalize. The first wildcard has a single eligible
 * sender, so it is not a branch; the second has none and rank 0 blocks
 * forever: one interleaving, a deadlock. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
