/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB021 */
/* Rank 0 sends with a negative count, which the MPI library rejects inside
 * MPI_Send (FIB021, "Invalid count"). */
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
