/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Rank 0 broadcasts 42 with MPI_Ibcast; every rank polls its request with
 * MPI_Test until it completes. The test fails until all three ranks have
 * joined the broadcast, then succeeds: 1 interleaving, every rank has 42. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, flag = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        x = 42;
    MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    while (!flag)
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return x == 42 ? 0 : 1;
}
