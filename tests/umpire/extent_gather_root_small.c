/* fib-test: nprocs=4 outcome=crash interleavings=1 codes=FIB039 at=FIB039:14 */
/* The root gathers two ints from each of four processes into an array
 * written for two processes: the root's receive buffer must hold
 * size x count elements. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, mine[2], all[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine[0] = rank;
    mine[1] = -rank;
    /* all[4] was right for two processes. */
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
