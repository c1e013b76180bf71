/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB014 */
/* Rank 0 sends rank 2 a message and waits in the barrier while rank 1 takes
 * MPI_Win_lock_all and rank 2 a shared lock on rank 0, before rank 2
 * receives the message. MPI completes rank 1's lock_all only when rank 2's
 * progress engine runs, and a probe that finds the pending message returns
 * without running it (MPICH's): fib's library must let MPI make progress
 * while the rank waits for the scheduler, whatever messages wait for it.
 * Before it probed a communicator of its own, this run hung. The barrier
 * orders nothing the locks do not: FIB014. */
#include <mpi.h>
int main(int argc, char **argv)
{
    int rank, out, in[1], src[3] = {1, 2, 3};
    MPI_Request req[1];
    int *w0;
    MPI_Win win0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    out = rank;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w0, &win0);
    if (rank == 0) {
        MPI_Send(&out, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);

    } else if (rank == 1) {
        MPI_Win_lock_all(0, win0);
        MPI_Accumulate(&src[0], 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win0);
        MPI_Win_unlock_all(win0);
    } else if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win0);
        MPI_Put(&src[0], 1, MPI_INT, 0, 2, 1, MPI_INT, win0);
        MPI_Win_unlock(0, win0);
        MPI_Recv(&in[0], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win0);
    MPI_Finalize();
    return 0;
}
