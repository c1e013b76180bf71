/* Each rank polls with MPI_Test for a message the other sends only after
 * its own poll succeeds: no poll can ever succeed (a livelock, FIB010). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, done = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &req);
    while (!done)
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    MPI_Send(&rank, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
