/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Rank 1 reads the buffer of its pending MPI_Irecv in a loop before the
 * wait: MPI may be writing it. One FIB034 for the (load, MPI_Irecv) pair, not
 * one per iteration. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0, buf[64] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(buf, 64, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        for (int k = 0; k < 1000; k++)
            for (int i = 0; i < 64; i++)
                sum += buf[i];
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(buf, 64, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return sum;
}
