/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Rank 0 gets into y in a fence epoch and reads y before the closing
 * fence: MPI may not have written it yet (FIB034 at the load, naming the
 * MPI_Get). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, y = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Get(&y, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        printf("%d\n", y);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
