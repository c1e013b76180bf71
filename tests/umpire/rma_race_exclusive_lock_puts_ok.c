/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* The twin of rma_race_shared_lock_puts.c with exclusive locks: the two
 * epochs never overlap, so the puts are ordered in each of the two grant
 * orders fib explores (2 interleavings), and nothing races. */
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
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
