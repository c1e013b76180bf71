/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 at=FIB038:20 */
/* Rank 0 sends the first two ints of an array that is its window memory
 * (MPI_Win_create) with MPI_Isend; rank 1 puts into the first int under a
 * lock and then receives the message. MPI reads the send buffer at any
 * moment between the MPI_Isend and its MPI_Wait, and nothing orders the
 * put with that: the message may carry the old value or the new one
 * (FIB038 at the MPI_Isend, naming the put). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mem[4] = {0, 0, 0, 0}, x = 42, v[2];
    MPI_Win win;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Isend(mem, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Recv(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%d %d\n", v[0], v[1]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
