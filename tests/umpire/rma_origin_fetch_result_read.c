/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Rank 1 fetches-and-adds rank 0's counter into old and reads old before
 * the unlock that completes the call: MPI may not have written old yet
 * (FIB034 at the load, naming the MPI_Fetch_and_op). After the unlock,
 * reading it is fine. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, old = -1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
        printf("before: %d\n", old);
        MPI_Win_unlock(0, win);
        printf("after: %d\n", old);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
