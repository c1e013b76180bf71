/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 0 broadcasts and then sends to rank 1; rank 1 first receives from rank
 * 0 and only then joins the broadcast. This happens to run under MPICH because
 * a small broadcast root returns early, but MPI allows every collective to
 * synchronize, and then rank 0 waits in MPI_Bcast for rank 1, which waits in
 * MPI_Recv for rank 0. Collectives are fences in POE: deadlock, 1
 * interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, msg = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        value = 11;
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&msg, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
