/* fib-barriers: nprocs=3 outcome=ok interleavings=2 */
/*
 * barrier L32: irrelevant
 * barrier L36: irrelevant
 * barrier L44: irrelevant
 *
 * The "crooked barrier" (Vo, dissertation, Fig. 3.2). Rank 1 posts a
 * nonblocking MPI_ANY_SOURCE receive before the barrier and waits for it only
 * after a second, blocking wildcard receive after the barrier. Rank 0 sends
 * 22 before the barrier, rank 2 sends 33 after it. Although rank 2's send is
 * issued after the barrier and the receive before it, the receive need not
 * match until its wait, so it can get either message: x = 22 or x = 33 (the
 * case the figure's "if (x == 33) ERROR" shows is reachable; here it is only
 * recorded). The blocking receive takes whichever message is left; it cannot
 * overtake the earlier, still open MPI_Irecv, which accepts both. Two
 * interleavings. The barrier orders nothing that matters: the MPI_Irecv is
 * not a fence, so no completes-before path leads from it through the
 * MPI_Barrier to rank 2's send, and without the barrier the same two outcomes
 * exist. Irrelevant; the three barrier lines are one group.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v, x = 0, y = 0;
    MPI_Request h;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        v = 22;
        MPI_Isend(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &h);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &h);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
        /* Fig. 3.2 flags x == 33 as an error; both values are legal here. */
        if (x + y != 55)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 2) {
        v = 33;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &h);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
