/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001,FIB014 */
/* After a common barrier, rank 0 waits for a message from rank 1, but rank 1
 * goes straight to MPI_Finalize without sending it. Rank 0 is left blocked in
 * MPI_Recv while rank 1 sits in Finalize: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
