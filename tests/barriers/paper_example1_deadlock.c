/* fib-barriers: nprocs=1 outcome=deadlock interleavings=1 */
/*
 * barrier L23: not-covered
 *
 * Sharma et al., Example 1 exactly as the paper gives it: a single rank
 * receives from itself and waits for that receive before the barrier, and
 * only sends after the barrier. MPI_Wait is a fence, so the send is never
 * issued and the rank deadlocks in MPI_Wait at L22, barrier or not. The
 * MPI_Barrier is never reached, so its verdict is "not covered" (never
 * "irrelevant"); the deadlock is the finding. This program does not
 * terminate natively: run it only under fib.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, v = 22;
    MPI_Request h, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &h);
    MPI_Wait(&h, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
