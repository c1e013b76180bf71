/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB001,FIB016 */
/* Ranks 0 and 1 call MPI_Barrier on MPI_COMM_WORLD, rank 2 skips it and calls
 * MPI_Finalize. The barrier never gets all its members: ranks 0 and 1 are
 * left blocked while rank 2 finalizes, a deadlock in the single interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 2)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
