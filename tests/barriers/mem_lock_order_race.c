/* fib-barriers: nprocs=2 outcome=ok interleavings=1
 * barrier L30: relevant memory: L27 rank 0, L35 rank 1
 *
 * Rank 0 gets element 0 of rank 1's window under an exclusive lock and
 * enters the barrier; rank 1 leaves it, takes MPI_Win_lock_all, puts into
 * element 1 of its own window, unlocks, and stores into element 0. The
 * two epochs touch different elements, and with rank 0's epoch first the
 * store comes after everything the get does. But the barrier is what
 * makes rank 0's epoch go first: delete it and rank 1's lock_all can be
 * granted first, and then nothing orders the store before or after the
 * get, which race. Relevant; the witness names the get and the store, and
 * the two lock epochs whose order the barrier fixes.
 */
#include <mpi.h>

static int mem[4];

int main(int argc, char **argv)
{
    int rank, got = 0, one = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock_all(0, win);
        MPI_Put(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_unlock_all(win);
        mem[0] = 10;
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
