/* fib-barriers: nprocs=2 outcome=ok interleavings=1 */
/*
 * barrier L28: not-covered
 * barrier L29: irrelevant
 *
 * A ring exchange with a debugging switch that is off. The barrier at L28
 * sits in the branch taken only when debug_sync is set, and no rank ever
 * sets it, so no run executes it: its verdict is "not covered" (fib has seen
 * nothing of what it orders, so it must not call it irrelevant). The barrier
 * at L29 runs on every rank; there is no wildcard receive, so it is
 * irrelevant and one interleaving covers the program.
 */
#include <mpi.h>

static int debug_sync = 0; /* set to 1 to separate the phases when debugging */

int main(int argc, char **argv)
{
    int rank, size, token, got = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    token = rank;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0,
                 &got, 1, MPI_INT, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (debug_sync)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (got != (rank + size - 1) % size)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
