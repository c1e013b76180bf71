/* fib-test: nprocs=3 outcome=deadlock interleavings=1 flags=--zero-buffer codes=FIB001 */
/* The ring of ring_blocking_send.c under --zero-buffer: each MPI_Send waits
 * for its right neighbour's receive, which is posted only after that
 * neighbour's own send completes. All three ranks wait in MPI_Send around the
 * cycle: deadlock, 1 interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, in = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Send(&rank, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    assert(in == left);
    MPI_Finalize();
    return 0;
}
