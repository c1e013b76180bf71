/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB035 at=FIB035:25 */
/* Rank 0 locks the window after a fence without MPI_MODE_NOSUCCEED, puts
 * under the lock, unlocks, and the ranks fence again. A communication
 * call between two fences starts the fence's access epoch at the first
 * one, so the lock epoch lies inside it: MPI forbids overlapping epochs
 * on one window (the MPI Bugs Initiative's DoubleEpoch). fib can tell
 * only at the closing fence, and reports it there, labelling the lock.
 * The twin rma_fence_then_locks_ok.c has no closing fence: no fence
 * epoch ever started. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 7;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
