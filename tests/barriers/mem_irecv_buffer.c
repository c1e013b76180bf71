/* fib-barriers: nprocs=3 outcome=ok interleavings=1
 * barrier L31: relevant memory: L28 rank 0, L34 rank 2
 *
 * Rank 0 receives rank 1's two ints with MPI_Irecv straight into its own
 * window, waits, and enters the barrier; rank 2 leaves the barrier and
 * puts into the second of those ints under a lock. From the MPI_Irecv to
 * its MPI_Wait the buffer is MPI's: it may write it at any moment. The
 * barrier keeps rank 2's put away from the pending receive buffer; delete
 * it and the put races the receive (the element could end up holding
 * either value). Relevant; the witness names the MPI_Irecv (completed by
 * the wait) and the put.
 */
#include <mpi.h>

static int mem[4];

int main(int argc, char **argv)
{
    int rank, x = 42, v[2] = {1, 2};
    MPI_Win win;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 1)
        MPI_Send(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Irecv(mem, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
