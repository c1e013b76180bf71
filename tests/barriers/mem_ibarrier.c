/* fib-barriers: nprocs=2 outcome=ok interleavings=1
 * barrier L27: relevant memory: L24 rank 1, L30 rank 0
 *
 * mem_lock_put_read with MPI_Ibarrier: rank 1 starts the Ibarrier
 * after its unlock, rank 0 reads after its wait on the Ibarrier
 * returned, which needs rank 1 to have started it. Deleted, the Ibarrier's
 * request completes at once and the put races the read: relevant. The
 * path goes from the unlock through rank 1's Ibarrier to rank 0's wait.
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
    MPI_Request req;
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        v = mem[3];
    MPI_Win_free(&win);
    MPI_Finalize();
    return v < 0;
}
