/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 1 waits for a message rank 0 sends only after the second fence,
 * which rank 1 has not reached: rank 0 waits in MPI_Win_fence, rank 1 in
 * MPI_Recv. (A rank that skips the fence for MPI_Win_free instead is
 * FIB009: both are collectives of the window.) */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 3;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
