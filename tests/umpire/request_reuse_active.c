/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:15 */
/* Rank 0 starts a second MPI_Isend into the request variable that still
 * holds the first one's request: the first request's handle is lost and
 * it can never be completed. An error at the second MPI_Isend (FIB012,
 * naming the first), before it reaches MPI. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1, y = 2;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Isend(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
