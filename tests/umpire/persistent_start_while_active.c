/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:20 */
/* Rank 0 makes a persistent receive and starts it twice without
 * completing it in between: MPI forbids starting an active request. fib
 * stops the run at the second MPI_Start (FIB012), before MPI sees it. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv_init(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Start(&req);
        MPI_Start(&req);
        MPI_Request_free(&req);
    } else {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
