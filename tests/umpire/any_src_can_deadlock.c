/* fib-test: nprocs=3 outcome=deadlock interleavings=2 codes=FIB001 */
/* Rank 0 receives once from MPI_ANY_SOURCE and then specifically from rank 2;
 * ranks 1 and 2 each send one message to rank 0. The wildcard receive has two
 * eligible senders (2 interleavings). If it takes rank 1's message, the
 * specific receive gets rank 2's and the run ends cleanly; if it takes rank
 * 2's message, the receive from rank 2 never matches: deadlock in one of the
 * two interleavings. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
