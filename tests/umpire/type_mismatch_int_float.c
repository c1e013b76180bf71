/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB030 at=FIB030:15 */
/* Rank 0 sends an MPI_INT; rank 1 receives it as MPI_FLOAT. Both are four
 * bytes, so MPI delivers the message without a word and rank 1 reads an
 * int's bits as a float (FIB030 at the MPI_Recv, labelling the send). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, n = 42;
    float x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(&n, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(&x, 1, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%g\n", x);
    }
    MPI_Finalize();
    return 0;
}
