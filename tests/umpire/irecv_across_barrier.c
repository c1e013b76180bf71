/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014 */
/* Rank 0 posts an MPI_Irecv from rank 1, enters a barrier, and only then
 * waits; rank 1 sends after the barrier. A nonblocking receive issued before a
 * fence stays pending across it and is matched afterwards: ok, 1
 * interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        assert(buf == 8);
    } else {
        buf = 8;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
