/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:13 */
/* Both ranks broadcast from root 2 in a communicator of 2 processes
 * (FIB012 at the MPI_Bcast, before MPI sees it). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) x = 42;
    /* Meant to be the last rank: size - 1. */
    MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
