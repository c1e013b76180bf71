/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB012 at=FIB012:14 */
/* Ranks 0 and 1 split off a communicator of their own; rank 2 passes
 * MPI_UNDEFINED and gets MPI_COMM_NULL, but reduces over it like the
 * others (FIB012 at the MPI_Allreduce: MPI_COMM_NULL is not a
 * communicator). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, sum = 0;
    MPI_Comm pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, pair);
    if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
    MPI_Finalize();
    return 0;
}
