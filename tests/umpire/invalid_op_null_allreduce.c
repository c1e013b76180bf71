/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:13 */
/* Both ranks reduce with MPI_OP_NULL: FIB012 at the call, before MPI
 * sees it (MPI would raise its own error, in whichever rank first). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, sum = 0;
    MPI_Op op = MPI_SUM;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 5)
        op = MPI_MAX;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, argc > 0 ? MPI_OP_NULL : op, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
