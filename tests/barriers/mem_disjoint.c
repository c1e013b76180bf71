/* fib-barriers: nprocs=2 outcome=ok interleavings=1
 * barrier L24: irrelevant
 *
 * Rank 1 puts into element 3 of rank 0's window; rank 0 reads element
 * 1. The accesses share no byte, so nothing can race whatever orders
 * them: the barrier between them is irrelevant.
 */
#include <mpi.h>

static int mem[4];

int main(int argc, char **argv)
{
    int rank, x = 42, v = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        v = mem[1];
    MPI_Win_free(&win);
    MPI_Finalize();
    return v < 0;
}
