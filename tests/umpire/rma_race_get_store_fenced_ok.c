/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of rma_race_get_store.c: rank 0 stores before the fence that
 * opens the epoch of rank 1's get, so the fence orders the store before
 * the get's read. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, y = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0)
        base[3] = 7;
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Get(&y, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        printf("%d\n", y);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
