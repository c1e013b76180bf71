/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB036 at=FIB036:15 */
/* Rank 0 puts two ints from a null origin buffer. The twin,
 * rma_fence_create_ok.c, puts from its own memory. */
#include <mpi.h>
#include <stddef.h>
int main(int argc, char **argv) {
    int rank, buf[2] = {0, 0};
    int *origin = NULL;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_fence(0, w);
    if (rank == 0)
        MPI_Put(origin, 2, MPI_INT, 1, 0, 2, MPI_INT, w);
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
