/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 0 posts receives with tag 0 from ranks 1 and 2 and waits for both with
 * MPI_Waitall. Rank 1 sends with tag 0, but rank 2 sends with tag 1, so one
 * request never completes and the Waitall blocks forever: deadlock, 1
 * interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, bufs[2] = {0, 0};
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&bufs[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&bufs[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, sts);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, rank - 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
