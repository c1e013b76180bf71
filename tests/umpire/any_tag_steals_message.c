/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 1 sends tag 1 then tag 2. Rank 0 receives tag 2 first (legal: different
 * tags may be received out of order), then receives from rank 1 with
 * MPI_ANY_TAG, which takes the pending tag-1 message, and finally asks for tag
 * 1 again. Nothing is left to match the last receive: a deterministic deadlock,
 * 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        buf = 1;
        MPI_Send(&buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        buf = 2;
        MPI_Send(&buf, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
