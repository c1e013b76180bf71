/* fib-test: nprocs=3 outcome=deadlock interleavings=2 codes=FIB001,FIB014 */
/* Rank 0 posts a nonblocking MPI_ANY_SOURCE receive, enters a barrier, waits
 * for the receive and then receives specifically from rank 1. Rank 2 sends
 * before the barrier, rank 1 after it. The barrier does not stop the race: the
 * wildcard receive lingers past the barrier and is decided only when every
 * rank is blocked, at which point both sends are eligible (2 interleavings).
 * If it takes rank 1's message, the receive from rank 1 never matches. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
