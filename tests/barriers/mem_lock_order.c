/* fib-barriers: nprocs=3 outcome=ok interleavings=1
 * barrier L28: relevant memory: L25 rank 1, L31 rank 2
 *
 * Ranks 1 and 2 both take an exclusive lock on rank 0: rank 1 puts
 * into element 0, then enters the barrier; rank 2 leaves the barrier and
 * gets element 0. The locks keep the two from racing either way, but
 * which epoch goes first decides what rank 2 gets, and the barrier is
 * what makes rank 1's go first. Deleted, the engine can grant rank 2's
 * lock first: a new order of two conflicting lock epochs, so the barrier
 * is relevant. The witness names the put and the get.
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
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return v < 0;
}
