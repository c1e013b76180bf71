/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 writes the buffer of its persistent send between the wait and the
 * next MPI_Start, when the request is inactive: no finding. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        for (int it = 0; it < 3; it++) {
            buf[0] = it;
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    } else {
        for (int it = 0; it < 3; it++)
            MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
