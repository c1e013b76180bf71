/* fib-barriers: nprocs=1 outcome=ok interleavings=1 */
/*
 * barrier L24: irrelevant
 *
 * Sharma et al., Example 1, in its altered (terminating) form: a single rank
 * posts a receive from itself, crosses a barrier, sends to itself, and only
 * then waits for both requests. The barrier can be crossed while the
 * receive is still pending, so the send after it is issued and matches the
 * receive; there is no wildcard receive, so the barrier is irrelevant and
 * one interleaving covers the program. (The paper's original order, with the
 * MPI_Wait before the barrier, deadlocks with or without the barrier: see
 * paper_example1_deadlock.c.)
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, v = 22;
    MPI_Request h[2];
    MPI_Status st[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &h[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &h[1]);
    MPI_Waitall(2, h, st);
    MPI_Finalize();
    return x == 22 ? 0 : 1;
}
