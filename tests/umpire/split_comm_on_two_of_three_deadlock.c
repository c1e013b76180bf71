/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB001 */
/* Ranks 0 and 1 split MPI_COMM_WORLD by parity; rank 2 sends to rank 0
 * first, which receives only after its split. The split waits for rank 2,
 * and rank 2's send (synchronous) for rank 0's receive: a deadlock of a
 * collective constructor and a message. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) {
        MPI_Ssend(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    } else {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        if (rank == 0)
            MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
