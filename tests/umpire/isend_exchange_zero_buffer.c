/* fib-test: nprocs=2 outcome=ok interleavings=1 flags=--zero-buffer codes=- */
/* Both ranks MPI_Isend to each other, then MPI_Recv, then wait for the send.
 * Under --zero-buffer an Isend completes only when matched, but the Isend
 * itself does not block, so both receives get posted and match: ok, 1
 * interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = -1;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Isend(&rank, 1, MPI_INT, other, 0, MPI_COMM_WORLD, &req);
    MPI_Recv(&in, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    assert(in == other);
    MPI_Finalize();
    return 0;
}
