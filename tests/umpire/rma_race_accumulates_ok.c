/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Ranks 1 and 2 add to the same element of rank 0's window with
 * MPI_Accumulate and MPI_SUM under shared locks: accumulates with the same
 * operation and basic datatype are atomic, so they do not race. */
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
        MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
