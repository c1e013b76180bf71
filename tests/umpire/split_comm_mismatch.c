/* fib-test: nprocs=4 outcome=deadlock interleavings=1 codes=FIB001 */
/* MPI_COMM_WORLD is split into {0,1} and {2,3}. World rank 1 sends to its
 * local rank 0 (world rank 0) on the split communicator, but world rank 0
 * receives from rank 1 on MPI_COMM_WORLD. Different communicators never match:
 * rank 0 blocks forever, deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (rank == 1)
        MPI_Send(&rank, 1, MPI_INT, 0, 0, half);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
