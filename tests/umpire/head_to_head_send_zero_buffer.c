/* fib-test: nprocs=2 outcome=deadlock interleavings=1 flags=--zero-buffer codes=FIB001 */
/* The program of head_to_head_send.c checked with --zero-buffer: every
 * standard MPI_Send is synchronous, so both ranks wait in MPI_Send for a
 * receive that the other rank will only post after its own send returns.
 * Deadlock, 1 interleaving. */
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
