/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014,FIB034 */
/* Rank 0 tests its MPI_Issend once before the receiver has posted (the
 * test fails: the operation is still pending) and then writes the buffer:
 * FIB034. Rank 1 posts its receive only after a barrier that rank 0 enters
 * after the write. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, buf[4] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Issend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            buf[1] = 9;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
