/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB035 at=FIB035:17 */
/* Rank 0 opens a lock-all epoch and calls MPI_Finalize without
 * MPI_Win_unlock_all (and without freeing the window). The twin,
 * rma_lock_all_request_shared_ok.c, closes the epoch and frees it. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, *b, x = 1;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
    if (rank == 0) {
        MPI_Win_lock_all(0, w);
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, w);
        MPI_Win_flush(1, w);
    }
    MPI_Finalize();
    return 0;
}
