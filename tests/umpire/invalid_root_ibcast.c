/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:12 */
/* Both ranks start an MPI_Ibcast from root 2 of a communicator of two:
 * FIB012 at the call, as for the blocking MPI_Bcast, before MPI sees it. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank;
    MPI_Ibcast(&x, 1, MPI_INT, 2, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
