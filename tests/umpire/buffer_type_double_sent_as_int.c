/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB032 at=FIB032:15 */
/* Rank 0 sends an array of doubles as MPI_INT: MPI sends the first 16
 * bytes of the array, half of it, cut into four ints that rank 1 reads
 * as nonsense. MPI does not check it, and the run goes through; fib
 * reports the mismatch before running (FIB032 at the buffer). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, b[4] = {0};
    double a[4] = {1.5, 2.5, 3.5, 4.5};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(b, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%d %d\n", b[0], b[3]);
    }
    MPI_Finalize();
    return 0;
}
