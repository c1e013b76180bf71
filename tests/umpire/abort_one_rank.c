/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB003,FIB014 */
/* After a barrier, rank 1 calls MPI_Abort with error code 3 while rank 0
 * proceeds to MPI_Finalize. The job is aborted by one rank: 1 interleaving,
 * crash attributed to rank 1. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Finalize();
    return 0;
}
