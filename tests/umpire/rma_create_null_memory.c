/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB036 at=FIB036:11 */
/* Rank 1 makes its part of a window from a null pointer declared 64 bytes
 * long. The twin, rma_fence_create_ok.c, gives MPI_Win_create its memory. */
#include <mpi.h>
#include <stddef.h>
int main(int argc, char **argv) {
    int rank, buf[16];
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(rank == 1 ? NULL : buf, sizeof buf, sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &w);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
