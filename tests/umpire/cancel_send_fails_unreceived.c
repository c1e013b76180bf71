/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB020 at=FIB020:17 */
/* Rank 1 sends a message nobody receives and cancels the send, expecting
 * MPI to take it back. MPI does not promise that a send's cancel
 * succeeds, and fib lets it fail: the message goes out and is never
 * received (FIB020, with a note on the cancel). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, x = 7, flag = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Isend(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        printf("cancelled: %d\n", flag);
    }
    MPI_Finalize();
    return 0;
}
