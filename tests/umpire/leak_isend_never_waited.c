/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB018 */
/* Rank 0 sends with MPI_Isend and never waits for the request; rank 1
 * receives the message. The run completes, but the request is still active
 * at MPI_Finalize: a leaked request (FIB018) at the MPI_Isend. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 42;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
