/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB038 */
/* The twin of rma_race_accumulates_ok.c in which rank 2 puts instead of
 * accumulating: a put is not atomic with an accumulate, so the two race
 * (FIB038). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, x;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    x = rank;
    if (rank != 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        if (rank == 1)
            MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        else
            MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
