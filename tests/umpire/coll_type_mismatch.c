/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB031 at=FIB031:15 */
/* Rank 0 reduces doubles while rank 1 gives floats to the same MPI_Reduce
 * (FIB031 at the MPI_Reduce: the datatypes differ). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank;
    double d = 1.0, sum = 0;
    float f = 1.0f, fsum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Reduce(&f, &fsum, 1, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else {
        MPI_Reduce(&d, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
