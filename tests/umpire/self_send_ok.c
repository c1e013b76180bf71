/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB023 */
/* Every rank sends a message to itself with a standard (buffered) MPI_Send and
 * then receives it. With the default buffering the send completes without a
 * receive, so the later receive matches it: 1 interleaving, ok. Without
 * buffering the send would wait for a receive its own rank posts only later:
 * fib warns (FIB023). */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Send(&rank, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    assert(in == rank);
    MPI_Finalize();
    return 0;
}
