/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 at=FIB038:22,FIB038:23 */
/* Rank 0 receives into the first two ints of its window with a blocking
 * MPI_Recv, then reduces in place into the last two with MPI_Iallreduce;
 * rank 1 sends the message and then puts into the second and the fourth
 * int under a lock. The blocking receive writes its buffer once the
 * message came, during the call, and nothing orders that with the put
 * made after the send; the reduction's buffer is MPI's until its
 * MPI_Wait, and nothing orders the other put with it either (FIB038 at
 * each call). */
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
        MPI_Recv(base, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Iallreduce(MPI_IN_PLACE, base + 2, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Put(&x, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
