/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB018 at=FIB018:16 */
/* Both ranks start an MPI_Comm_idup; rank 1 waits for it and frees the new
 * communicator, rank 0 never completes its request. The run completes, but
 * rank 0's request is still active at MPI_Finalize: a leaked request
 * (FIB018) at the MPI_Comm_idup, which also covers the communicator rank 0
 * never got. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm dup;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    if (rank == 1) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Comm_free(&dup);
    }
    MPI_Finalize();
    return 0;
}
