/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB035 at=FIB035:16 */
/* Rank 0 flushes its puts to rank 1 after unlocking it: no passive-target
 * epoch is open. The twin, rma_lock_all_request_shared_ok.c, flushes
 * inside its lock-all epoch. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, *b, x = 1;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, w);
        MPI_Win_unlock(1, w);
        MPI_Win_flush(1, w);
    }
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
