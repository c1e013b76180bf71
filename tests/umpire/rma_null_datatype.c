/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB036 at=FIB036:13 */
/* Rank 0 accumulates one element with MPI_DATATYPE_NULL as the target
 * datatype. The twin, rma_fence_create_ok.c, passes real datatypes. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, buf[2] = {0, 0}, x = 1;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_fence(0, w);
    if (rank == 0)
        MPI_Accumulate(&x, 1, MPI_INT, 1, 0, 1, MPI_DATATYPE_NULL, MPI_SUM, w);
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
