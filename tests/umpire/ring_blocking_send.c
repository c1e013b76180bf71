/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB023 */
/* Each rank MPI_Sends to its right neighbour and then receives from its left
 * neighbour. With buffered standard sends every send returns at once and each
 * receive then matches: ok, 1 interleaving. Without buffering the same ring
 * deadlocks (ring_blocking_send_zero_buffer.c).
 * Without buffering the same calls deadlock, so fib warns (FIB023).
 */
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
