/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Rank 1 puts from x into rank 0's window under a lock and stores into x
 * before the unlock: until the unlock (or a flush) completes the put at the
 * origin, MPI may still be reading x (FIB034 at the store, naming the
 * MPI_Put). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        x = 2;
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
