/* fib-barriers: nprocs=3 outcome=ok interleavings=1 */
/*
 * barrier L28: irrelevant
 * barrier L33: irrelevant
 * barrier L36: irrelevant
 *
 * Sharma et al., Example 5: the wildcard receive comes after the barrier.
 * Rank 0 sends to rank 2 after the barrier, rank 1 before it; rank 2 posts
 * MPI_Irecv from rank 1, crosses the barrier, then receives with
 * MPI_ANY_SOURCE. Without the barrier rank 0's message could exist earlier,
 * but the wildcard receive still cannot take rank 1's message: the earlier
 * receive from rank 1 accepts it and is matched first (non-overtaking on the
 * receive side; there is a matching send from rank 1, so the wildcard never
 * overtakes it). The wildcard always gets rank 0's message, barrier or not:
 * irrelevant, one group of three lines, one interleaving. Completed with the
 * wait for the MPI_Irecv.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v, x = 0, y = 0;
    MPI_Request h;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        v = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        v = 1;
        MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &h);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
        if (x != 1 || y != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
