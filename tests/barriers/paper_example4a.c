/* fib-barriers: nprocs=3 outcome=ok interleavings=1 */
/*
 * barrier L30: relevant witness: recv L28 rank 0, send L42 rank 2
 * barrier L37: relevant witness: recv L28 rank 0, send L42 rank 2
 * barrier L41: relevant witness: recv L28 rank 0, send L42 rank 2
 *
 * Sharma et al., Example 4(a): Example 4 with rank 0's MPI_Wait moved before
 * its barrier. Now the wildcard receive must complete before rank 0 enters
 * the barrier, and rank 2 sends only after leaving it, so the receive can
 * only get rank 1's 33 (one candidate: one interleaving). Delete the barrier
 * and rank 2's MPI_Isend at L42 is issued while the receive at L28 is
 * still open: the pair (receive L28 on rank 0, send L42 on rank 2)
 * becomes possible. Completes-before: the receive reaches rank 2's send only
 * through the barrier match set (Irecv -> Wait -> barrier of rank 0 ->
 * MPI_Barrier of rank 2 -> Isend). The three barrier lines are one group,
 * relevant as a whole. Completed with a second wildcard receive (L31) that
 * takes the other message, and waits for every request.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, v = 0;
    MPI_Request h, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &h);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (x != 33 || y != 22)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 1) {
        v = 33;
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        v = 22;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
