/* fib-test: nprocs=2 outcome=ok interleavings=2 codes=- */
/* Fence epochs with MPI_Put and MPI_Accumulate, then both ranks take an
 * exclusive lock on rank 0 to read it back: which lock is granted first is
 * a choice, so 2 interleavings. */
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size, *base, x = 7, y = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&x, 1, MPI_INT, (rank + 1) % size, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(&x, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&y, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
