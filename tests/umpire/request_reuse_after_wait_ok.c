/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* One request variable used for several operations in turn: each is
 * completed by MPI_Wait (which sets the variable to MPI_REQUEST_NULL)
 * before the variable takes the next request; rank 1's variable starts
 * uninitialised. Nothing to report. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1, y = 2;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Isend(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Irecv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
