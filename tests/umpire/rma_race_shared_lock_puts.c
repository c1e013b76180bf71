/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB038 */
/* Ranks 1 and 2 each put to the same bytes of rank 0's window under shared
 * locks: shared epochs may overlap, so the two puts race (FIB038). Shared
 * locks never compete: one interleaving. */
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
        MPI_Put(&x, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
