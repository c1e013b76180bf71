/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 */
/* Rank 1 puts into rank 0's window in a fence epoch in which rank 0 stores
 * to the same bytes of its own window: the put's effect may come at any
 * time before the closing fence, so the store races it (FIB038). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 42;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
    else
        base[1] = 7;
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%d\n", base[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
