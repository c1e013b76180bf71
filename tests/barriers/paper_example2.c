/* fib-barriers: nprocs=2 outcome=ok interleavings=2 */
/*
 * barrier L28: irrelevant
 * barrier L38: irrelevant
 *
 * Sharma et al., Example 2. Rank 0 posts a nonblocking MPI_ANY_SOURCE
 * receive, crosses the barrier, then sends 22 to itself; rank 1 sends 33 to
 * rank 0 before the barrier. Neither the MPI_Irecv (not a fence) nor rank 1's
 * MPI_Isend is ordered before the barrier, so the wildcard receive is still
 * open when both messages exist: it can get 22 (from rank 0 itself) or 33
 * (from rank 1), barrier or not. Deleting the barrier changes no (wildcard
 * receive, send) pair, so it is irrelevant. The two barrier lines are the two
 * ranks' halves of one group. Completed with waits for every request and a
 * second wildcard receive (L31) for the message the first one left.
 * Interleavings: the first receive has two candidates, the second then has one.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, v;
    MPI_Request h, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        v = 22;
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &h);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        if (x + y != 55)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 1) {
        v = 33;
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
