/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=FIB015 */
/* Ranks 1 and 2 compete for an exclusive lock on rank 0 and each adds to
 * its counter with MPI_Fetch_and_op; rank 0 waits in the last fence. Which
 * lock is granted first is a choice: exactly 2 interleavings. The barrier
 * keeps rank 0's store of 0 to its counter away from the adds: relevant
 * (FIB015). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, old = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
