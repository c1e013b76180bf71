/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB036 at=FIB036:12 */
/* Rank 0 puts at displacement 4 of a window of one int at rank 1: the
 * bytes are outside the target's window. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, *b, x = 1;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
    MPI_Win_fence(0, w);
    if (rank == 0) MPI_Put(&x, 1, MPI_INT, 1, 4, 1, MPI_INT, w);
    MPI_Win_fence(0, w);
    MPI_Finalize();
    return 0;
}
