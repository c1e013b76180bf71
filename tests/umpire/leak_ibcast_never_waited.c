/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB018 */
/* Both ranks start an MPI_Ibcast; rank 1 waits for it, rank 0 never
 * completes its request. The run completes, but rank 0's request is still
 * active at MPI_Finalize: a leaked request (FIB018) at the MPI_Ibcast. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        x = 7;
    MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank == 1)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
