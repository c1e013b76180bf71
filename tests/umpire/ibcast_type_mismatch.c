/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB031 at=FIB031:14 */
/* Rank 0 broadcasts ints with MPI_Ibcast while rank 1 receives floats:
 * the type signatures differ (FIB031 at rank 0's call, labelling rank
 * 1's). MPI does not check it; rank 1's floats hold garbage. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 42;
    float f = 0.0f;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    } else {
        MPI_Ibcast(&f, 1, MPI_FLOAT, 0, MPI_COMM_WORLD, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
