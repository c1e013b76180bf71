/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB031 at=FIB031:15 */
/* Rank 0 sums while the other ranks take the maximum in the same
 * MPI_Allreduce: MPI does not check that the operations agree, and the
 * result depends on the algorithm (FIB031 at rank 0's call, labelling the
 * others'). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, r = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        MPI_Allreduce(&rank, &r, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    } else {
        MPI_Allreduce(&rank, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
