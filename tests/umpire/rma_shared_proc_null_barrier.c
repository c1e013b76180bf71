/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB015 */
/* The twin of rma_race_shared_proc_null.c: a barrier (with MPI_Win_sync on
 * each side) between each rank's stores into the one segment and its loads
 * of the other half. The barrier is relevant: it orders rank 1's accesses
 * to rank 0's memory with rank 0's own. */
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
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (i = 0; i < 4; i++)
        sum += base[(1 - rank) * 4 + i];
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return sum > 100;
}
