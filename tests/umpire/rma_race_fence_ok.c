/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 puts into rank 0's window in a fence epoch; rank 0 writes the
 * same bytes before the first fence and reads them after the second: the
 * fences order every access, no race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 42;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%d\n", base[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
