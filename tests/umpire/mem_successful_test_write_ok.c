/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 tests its MPI_Isend until the test succeeds, then writes the
 * buffer: the successful test handed it back, no finding. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, buf[4] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        buf[1] = 9;
    } else {
        MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
