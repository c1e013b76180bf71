/* fib-barriers: nprocs=2 outcome=ok interleavings=1 */
/*
 * barrier L27: irrelevant
 * barrier L35: irrelevant
 *
 * Example 3 with MPI_Ibarrier. Rank 0 posts a nonblocking MPI_ANY_SOURCE
 * receive, starts the Ibarrier and waits for it, then for the receive;
 * rank 1 sends 33 before its Ibarrier and 22 after its wait on it, both to
 * rank 0 with one tag. The wait on the Ibarrier can return before the
 * receive matches, so the second send can exist while the receive is still
 * open, but non-overtaking orders rank 1's two sends: the wildcard receive
 * only ever gets 33. With or without the Ibarrier (deleted, its request
 * completes at once) the pairs are the same: irrelevant, one group of the
 * two ranks' lines, one interleaving.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, a = 33, b = 22;
    MPI_Request h, r, s[2];
    MPI_Status st[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &h);
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (x != 33 || y != 22)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 1) {
        MPI_Isend(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s[0]);
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Isend(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s[1]);
        MPI_Waitall(2, s, st);
    }
    MPI_Finalize();
    return 0;
}
