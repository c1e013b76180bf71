/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB023 */
/* Both ranks MPI_Send to each other and then MPI_Recv. With the default
 * buffering a standard send completes without a matching receive, so both
 * sends return and both receives match: ok, 1 interleaving. The same program
 * deadlocks without buffering (head_to_head_send_zero_buffer.c).
 * Without buffering the same calls deadlock, so fib warns (FIB023).
 */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Send(&rank, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    assert(in == other);
    MPI_Finalize();
    return 0;
}
