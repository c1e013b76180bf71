/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB030 at=FIB030:20 */
/* Rank 0 sends an MPI_INT; rank 1 takes it with a matched probe and
 * receives it as MPI_FLOAT with MPI_Mrecv. MPI delivers the four bytes
 * without a word (FIB030 at the MPI_Mrecv, labelling the send). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, n = 42;
    float x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&n, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Message m;
        MPI_Status st;
        MPI_Mprobe(0, 0, MPI_COMM_WORLD, &m, &st);
        /* the wrong datatype */
        MPI_Mrecv(&x, 1, MPI_FLOAT, &m, MPI_STATUS_IGNORE);
        printf("%g\n", x);
    }
    MPI_Finalize();
    return 0;
}
