/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB035 at=FIB035:17 */
/* Rank 1 waits for the end of an exposure epoch it never posted. The twin
 * is rma_pscw_create_ok.c. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, buf[2] = {0, 0};
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_fence(0, win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    } else {
        MPI_Win_fence(0, win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        MPI_Win_wait(win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
