/* fib-test: nprocs=3 outcome=deadlock interleavings=2 codes=FIB001 */
/* Rank 0 receives from MPI_ANY_SOURCE with MPI_ANY_TAG and then expects rank
 * 1's message with tag 5. Rank 1 sends tag 5, rank 2 sends tag 7. Both
 * messages are accepted by the fully wildcard receive (2 interleavings). If it
 * takes rank 1's tag-5 message, the second receive has nothing left to match. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
