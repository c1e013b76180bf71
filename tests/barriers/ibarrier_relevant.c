/* fib-barriers: nprocs=3 outcome=ok interleavings=1 */
/*
 * barrier L29: relevant witness: recv L28 rank 0, send L44 rank 2
 * barrier L37: relevant witness: recv L28 rank 0, send L44 rank 2
 * barrier L42: relevant witness: recv L28 rank 0, send L44 rank 2
 *
 * Example 4(a) with MPI_Ibarrier: rank 0 receives from anyone and only then
 * starts the Ibarrier; rank 2 sends only after its wait on the Ibarrier
 * returned, which needs every rank to have started it. So the wildcard
 * receive at L28 can only get rank 1's 33: one interleaving. Delete the
 * Ibarrier (its request then completes at once) and rank 2's send at L44
 * can reach the receive while it is still open: the pair (receive L28 on
 * rank 0, send L44 on rank 2) becomes possible. The path: receive -> rank
 * 0's Ibarrier -> the match set -> rank 2's MPI_Wait -> send. The three
 * Ibarrier lines are one group, relevant as a whole; the wait that
 * completes an Ibarrier is where its rank blocks.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, v = 0;
    MPI_Request b, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        /* The wildcard receive must finish before rank 0 joins. */
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ibarrier(MPI_COMM_WORLD, &b);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (x != 33 || y != 22)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 1) {
        v = 33;
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s);
        MPI_Ibarrier(MPI_COMM_WORLD, &b);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        v = 22;
        MPI_Ibarrier(MPI_COMM_WORLD, &b);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
