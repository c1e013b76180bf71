/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 at=FIB038:22,FIB038:25 */
/* A shared-memory window that only rank 0 gives memory to: every rank
 * finds it with MPI_Win_shared_query(MPI_PROC_NULL), which names the
 * segment of the lowest rank whose size is not zero. Each rank fills its
 * half, then reads the other's, with nothing in between: rank 1's
 * accesses are to rank 0's window memory, and race rank 0's (FIB038).
 * The twin rma_shared_proc_null_barrier.c orders them with a barrier. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, unit, i, sum = 0, *base;
    MPI_Aint size;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(rank == 0 ? 8 * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &base);
    for (i = 0; i < 4; i++)
        base[rank * 4 + i] = rank + i;
    MPI_Win_sync(win);
    for (i = 0; i < 4; i++)
        sum += base[(1 - rank) * 4 + i];
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return sum > 100;
}
