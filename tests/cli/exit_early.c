/* Rank 1 returns from main right after MPI_Init and MPI_Comm_rank, without
 * MPI_Finalize, while rank 0 waits in the barrier: the finding points at
 * rank 1's last MPI call, and the barrier, which never completed, is
 * reported as kept from completing by that failure. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        exit(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
