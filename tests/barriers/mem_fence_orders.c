/* fib-barriers: nprocs=2 outcome=ok interleavings=1
 * barrier L25: irrelevant ordered-by: L24
 *
 * The same put and read, with the put in a fence epoch: the second
 * MPI_Win_fence completes the put at rank 0 and orders it before
 * everything rank 0 does after the fence, the read included. The barrier
 * after it orders nothing the fence does not: irrelevant, and the advice
 * names the fence that already orders the put and the load.
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
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&x, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        v = mem[3];
    MPI_Win_free(&win);
    MPI_Finalize();
    return v < 0;
}
