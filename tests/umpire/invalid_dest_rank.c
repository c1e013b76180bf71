/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB012 at=FIB012:14 */
/* Every rank sends to its right neighbour without wrapping around: the
 * last rank names rank 3 of a communicator of 3 processes (FIB012 at the
 * MPI_Isend, named before MPI sees the call). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, x = 1, y = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0) MPI_Recv(&y, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Isend(&x, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
