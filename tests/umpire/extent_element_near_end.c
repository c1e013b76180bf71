/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB039 at=FIB039:15 */
/* Rank 1 receives four ints at &a[8] of an array of ten: the last two
 * land past the array. The twin, extent_ok.c, receives two there. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, a[10] = {0};
    int four[4] = {1, 2, 3, 4};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(four, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        /* Room for two ints from a[8] on. */
        MPI_Recv(&a[8], 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
