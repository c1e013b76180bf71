/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 0 receives from itself but never sends to itself; rank 1 does nothing.
 * The receive can never match: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
