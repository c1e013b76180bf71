/* fib-barriers: nprocs=3 outcome=ok interleavings=2 */
/*
 * barrier L28: irrelevant
 * barrier L36: irrelevant
 * barrier L41: irrelevant
 *
 * Sharma et al., Example 4. Like Example 3, but the send after the barrier
 * (22) comes from rank 2 instead of rank 1, so non-overtaking no longer
 * orders the two sends. Rank 0's MPI_Irecv(MPI_ANY_SOURCE) is not a fence and
 * rank 1's MPI_Isend does not have to complete before rank 1's barrier, so
 * the barrier can be crossed with the receive still open, and it can get 33
 * (rank 1) or 22 (rank 2). Without the barrier the same two outcomes exist,
 * so the barrier is irrelevant; the three lines are one group. "Rest of P1"
 * and "some code" of P2 are local work without communication; the program is
 * completed with a second wildcard receive (L30) for the other message and
 * waits for every request. Two interleavings (2 candidates, then 1).
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
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&h, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (x + y != 55)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (rank == 1) {
        v = 33;
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s);
        MPI_Barrier(MPI_COMM_WORLD);
        /* rest of P1: local work only, no communication */
        MPI_Wait(&s, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        v = 22; /* some code: local work only */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &s);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
