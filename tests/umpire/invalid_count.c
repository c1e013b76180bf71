/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:12 */
/* Rank 0 sends with a negative count. fib finds it before the call
 * reaches MPI (FIB012 at the MPI_Send, "count -1 is negative"), where the
 * MPI library would reject it from inside (an MPI error). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0, n = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&x, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
