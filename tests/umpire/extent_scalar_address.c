/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB039 at=FIB039:15 */
/* Rank 0 sends the address of one int with a count of two: the second
 * int is whatever the compiler put after x on the stack. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 7, y[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Recv(y, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        /* x and its neighbour, the programmer hoped. */
        int count = 2;
        MPI_Send(&x, count, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
