/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB022 */
/* The ranks exchange a value correctly and finalize; then rank 1's
 * self-check fails and it returns 3 from main. The communication is fine,
 * but the program fails: FIB022 names rank 1 and its status. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        x = 41;
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    if (rank == 1 && x != 42) {
        fprintf(stderr, "rank 1: expected 42, got %d\n", x);
        return 3;
    }
    return 0;
}
