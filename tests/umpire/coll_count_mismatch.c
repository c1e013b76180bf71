/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB031 at=FIB031:13 */
/* The root broadcasts two ints while the other rank expects one: the type
 * signatures differ (FIB031 at the MPI_Bcast). MPI may fail with a
 * truncation error on the receiving rank, or not. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, n, x[2] = {1, 2};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = rank == 0 ? 2 : 1;
    /* Meant to be 2 everywhere. */
    MPI_Bcast(x, n, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
