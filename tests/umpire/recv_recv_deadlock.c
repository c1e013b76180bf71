/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Both ranks receive from each other before sending. Each blocks in MPI_Recv
 * and neither send is ever issued: a deadlock in the only interleaving,
 * whatever the buffering. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = 0, out = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Recv(&in, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&out, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
