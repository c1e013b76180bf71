/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:14 */
/* Rank 0 waits for a message from rank -5, which is neither a rank of the
 * communicator nor MPI_ANY_SOURCE or MPI_PROC_NULL (FIB012 at the MPI_Irecv,
 * before MPI sees it). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0, from = -5;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        /* Meant to be the previous rank, modulo the size. */
        MPI_Irecv(&x, 1, MPI_INT, from, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
