/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Rank 0 stores into the buffer of its pending MPI_Isend before the wait:
 * MPI may still be reading it (FIB034 at the store, found in program order
 * whatever the timing). The run itself completes. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {1, 2, 3, 4};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        buf[2] = 7;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
