/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of rma_origin_put_store.c: MPI_Win_flush_local completes the
 * put at the origin, so the store into x after it is fine; a get's buffer
 * is read only after the fence that completes the get. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 1, y = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush_local(0, win);
        x = 2;
        MPI_Win_unlock(0, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Get(&y, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    printf("%d %d\n", x, y);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
