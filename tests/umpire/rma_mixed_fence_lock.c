/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB035 at=FIB035:16 */
/* Rank 0 puts in the epoch a fence opened, then locks the window before
 * the closing fence: passive and active target synchronisation mixed in
 * one epoch. The twin, rma_fence_put_accumulate_lock_ok.c, closes the
 * fence epoch first. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, *b, x = 1;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
    MPI_Win_fence(0, w);
    if (rank == 0) {
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, w);
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
        MPI_Win_unlock(1, w);
    }
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
