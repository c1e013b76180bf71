/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB038 */
/* Rank 1 puts into rank 0's window under a shared lock while rank 0 reads
 * the same bytes of its window with nothing in between: the put may land
 * before, after or during the load whatever this run's timing was (FIB038
 * at the load, naming the put and the unlock that completes it). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 42;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        printf("%d\n", base[0]);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
