/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB009,FIB016 */
/* Rank 0 calls MPI_Barrier, rank 1 MPI_Ibarrier and waits for it. A
 * blocking collective never matches a nonblocking one: fib reports the
 * collective mismatch (FIB009) naming both ranks' calls, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
