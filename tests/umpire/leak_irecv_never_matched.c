/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014,FIB018 */
/* Rank 1 posts an MPI_Irecv that nothing ever sends to and never waits for
 * it, so the run does not deadlock, but the receive request is left active at
 * MPI_Finalize (FIB018). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &req);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
