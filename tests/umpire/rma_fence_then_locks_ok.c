/* fib-test: nprocs=2 outcome=ok interleavings=1 codes= */
/* A fence without MPI_MODE_NOSUCCEED, then passive-target epochs only:
 * rank 0 puts into rank 1 under MPI_Win_lock, then under
 * MPI_Win_lock_all. The fence epoch saw no one-sided call (the put belongs
 * to the lock epoch), so the lock_all mixes nothing: no FIB035. */
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
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
        MPI_Win_lock_all(0, win);
        MPI_Put(&x, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_unlock_all(win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
