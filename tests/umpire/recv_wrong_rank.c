/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 1 sends to rank 0, but rank 0 receives from rank 2, which sends
 * nothing. Rank 0 blocks forever while the others reach MPI_Finalize: 1
 * interleaving (no wildcard), deadlock. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (rank == 1)
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
