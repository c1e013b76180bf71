/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB035 at=FIB035:13 */
/* Rank 0 puts to rank 1 with no epoch open: no fence, start or lock. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0)
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
