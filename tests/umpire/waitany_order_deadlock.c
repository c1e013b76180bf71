/* fib-test: nprocs=3 outcome=deadlock interleavings=2 codes=FIB001 */
/* Rank 0 posts receives from ranks 1 and 2 and calls MPI_Waitany. Both sends
 * are buffered and both receives match before rank 0's Waitany is decided, so
 * Waitany has two completed requests: 2 interleavings. The program wrongly
 * assumes rank 1's message always completes first; when Waitany reports rank
 * 2's request instead, rank 0 waits for an extra message from rank 1 that is
 * never sent. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, idx, bufs[2] = {0, 0}, extra = 0;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&bufs[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&bufs[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
        MPI_Wait(&reqs[1 - idx], MPI_STATUS_IGNORE);
        if (idx == 1)
            MPI_Recv(&extra, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
