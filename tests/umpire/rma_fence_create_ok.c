/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Fence epochs on a window made by MPI_Win_create over the program's own
 * arrays: every rank puts to its right neighbour, accumulates into rank 0
 * and gets from its left neighbour, in separate epochs. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size, buf[4] = {0, 0, 0, 0}, x, y = 0;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    x = rank + 1;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_fence(0, w);
    MPI_Put(&x, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, w);
    MPI_Win_fence(0, w);
    MPI_Accumulate(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, w);
    MPI_Win_fence(0, w);
    MPI_Get(&y, 1, MPI_INT, (rank + size - 1) % size, 0, 1, MPI_INT, w);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    if (buf[0] != (rank + size - 1) % size + 1 || y != (rank + size - 2) % size + 1
        || (rank == 0 && buf[1] != size * (size + 1) / 2)) {
        printf("rank %d: wrong values %d %d %d\n", rank, buf[0], buf[1], y);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
