/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 0 starts a synchronous MPI_Issend to rank 1 and waits for it; rank 1
 * never posts a receive. A synchronous send completes only when matched, even
 * with buffering: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 3;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Issend(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
