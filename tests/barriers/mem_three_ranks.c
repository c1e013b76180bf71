/* fib-barriers: nprocs=3 outcome=ok interleavings=1
 * also: nprocs=2 interleavings=1 L26=irrelevant
 * barrier L26: relevant memory: L23 rank 2, L28 rank 0
 *
 * Only rank 2 puts into rank 0's window before the barrier, and rank 0
 * reads the element after it. At 3 ranks the barrier is what orders the
 * put before the read: relevant. At 2 ranks there is no rank 2, nothing
 * crosses the barrier, and it is irrelevant (checked with -n 2,3).
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
    if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        v = mem[2];
    MPI_Win_free(&win);
    MPI_Finalize();
    return v < 0;
}
