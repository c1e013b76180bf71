/* fib-barriers: nprocs=2 outcome=ok interleavings=1
 * barrier L27: relevant memory: L24 rank 1, L29 rank 0
 *
 * The typical one-sided case: rank 1 puts into rank 0's window under a
 * passive-target lock, completes the put with MPI_Win_unlock and enters
 * the barrier; rank 0 leaves the barrier and reads the element. The
 * barrier is all that orders the put before the read: delete it and the
 * two race (the put may land before or after the load). Relevant; the
 * witness names the put (completed by the unlock) and the load.
 */
#include <mpi.h>

static int mem[4];

int main(int argc, char **argv)
{
    int rank, x = 42, v = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        v = mem[3];
    MPI_Win_free(&win);
    MPI_Finalize();
    return v < 0;
}
