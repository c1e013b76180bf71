/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 at=FIB038:20 */
/* Rank 0 receives into the first two ints of its own window with
 * MPI_Irecv and waits; rank 1 sends the message, then puts into the second
 * int under a lock. Nothing orders the put with the pending receive: MPI
 * may write the receive buffer at any moment between the MPI_Irecv and
 * its MPI_Wait, before or after the put lands (FIB038 at the MPI_Irecv,
 * naming the put, the MPI_Wait and the unlock). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 42, v[2] = {1, 2};
    MPI_Win win;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Irecv(base, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
