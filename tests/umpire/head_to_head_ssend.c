/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Both ranks MPI_Ssend to each other before receiving. A synchronous send
 * never completes without a matching receive, even in the default buffered
 * mode, so both ranks wait in MPI_Ssend forever: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Ssend(&rank, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
