/* fib-barriers: nprocs=2 outcome=ok interleavings=1 */
/*
 * barrier L28: irrelevant
 * barrier L35: irrelevant
 *
 * Sharma et al., Example 3. Rank 0 posts a nonblocking MPI_ANY_SOURCE
 * receive, crosses the barrier, then waits; rank 1 sends 33 before the
 * MPI_Barrier and 22 after it, both to rank 0 with the same tag. The barrier can
 * be crossed before the receive matches, so the second send can exist while
 * the receive is still open, but MPI's non-overtaking rule orders rank 1's
 * two sends: the wildcard receive can only ever get 33. With or without the
 * the barrier the pairs are the same, so it is irrelevant (one group: the two
 * MPI_Barrier lines are the two ranks' calls). Completed with a receive from rank
 * 1 for the 22 and waits for every request. The wildcard has one candidate:
 * one interleaving.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, a = 33, b = 22;
    MPI_Request h, s[2];
    MPI_Status st[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &h);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (x != 33 || y != 22)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 1) {
        MPI_Isend(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s[1]);
        MPI_Waitall(2, s, st);
    }
    MPI_Finalize();
    return 0;
}
