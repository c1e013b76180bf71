/* fib-test: nprocs=4 outcome=deadlock interleavings=6 codes=FIB001 */
/* Rank 0 does two MPI_ANY_SOURCE receives and then a receive from rank 3;
 * ranks 1, 2 and 3 each send one message. The first wildcard has 3 eligible
 * senders, the second the 2 remaining ones: 3 * 2 = 6 interleavings. Whenever
 * rank 3's message was taken by a wildcard (4 of the 6), the final receive from
 * rank 3 never matches; the orders (1,2) and (2,1) end cleanly. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
