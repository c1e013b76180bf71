/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB009 */
/* Rank 0 starts an MPI_Ibcast where ranks 1 and 2 start an
 * MPI_Iallreduce, and every rank waits for its request. Nonblocking
 * collectives match in their communicator's order like blocking ones:
 * different operations never form one match set, so fib reports the
 * mismatch (FIB009) naming every rank's call, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    else
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
