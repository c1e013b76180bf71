/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB036 at=FIB036:13 */
/* Rank 0 gets from rank 2 of a window made over two processes. The twin,
 * rma_fence_create_ok.c, names ranks of the window's group. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, buf[2] = {0, 0}, y = 0;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_fence(0, w);
    if (rank == 0)
        MPI_Get(&y, 1, MPI_INT, rank + 2, 0, 1, MPI_INT, w);
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
