/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 1 sends with tag 1, rank 0 receives from rank 1 with tag 2. The send is
 * buffered and rank 1 finalizes; the receive never matches: deadlock, 1
 * interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
