/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB018 */
/* Rank 0 polls its receive with MPI_Request_get_status until the message
 * is in, and never waits for it: MPI_Request_get_status does not free the
 * request, so it is a leaked request (FIB018) although its data arrived. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, buf = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    } else {
        buf = 1;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
