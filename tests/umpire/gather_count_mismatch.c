/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB031 at=FIB031:14 */
/* The root of an MPI_Gather receives 1 double from each rank while rank
 * 1 sends 2: the type signatures differ (FIB031 at rank 0's call,
 * labelling rank 1's). MPI may fail with a truncation error, or not. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank;
    double mine[2] = {1.0, 2.0}, all[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Meant to be 1 everywhere: the root gives the count of one rank's
     * block, not of the whole buffer. */
    MPI_Gather(mine, rank == 0 ? 1 : 2, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
