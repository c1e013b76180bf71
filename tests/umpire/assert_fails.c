/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB002 */
/* Rank 1 receives a value from rank 0 and asserts it is positive; rank 0 sends
 * -1, so the assert fails and rank 1 aborts (SIGABRT). Deterministic: 1
 * interleaving, crash on rank 1. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        v = 0;
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(v > 0);
    }
    MPI_Finalize();
    return 0;
}
