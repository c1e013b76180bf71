/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 */
/* Rank 1 gets from rank 0's window in a fence epoch in which rank 0 stores
 * to the same bytes: the get may read before or after the store (FIB038,
 * a read of the target racing a store). The twin with the store before the
 * opening fence is rma_race_get_store_fenced_ok.c. */
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
    if (rank == 1)
        MPI_Get(&y, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    else
        base[3] = 7;
    MPI_Win_fence(0, win);
    if (rank == 1)
        printf("%d\n", y);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
