/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:16 */
/* Both ranks start an MPI_Comm_idup and reduce over the new communicator
 * before waiting for the request: MPI forbids using it until the idup has
 * completed. The call is stopped before it reaches MPI (FIB012 at the
 * MPI_Allreduce). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
