/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014 */
/* Passive target with MPI_Win_lock_all (shared locks never compete):
 * request-based MPI_Rput and MPI_Rget completed with MPI_Wait, MPI_Raccumulate,
 * MPI_Rget_accumulate, MPI_Get_accumulate, MPI_Compare_and_swap, the local
 * flushes, MPI_Win_flush_all and MPI_Win_sync; then shared locks. The
 * pending fetches write different result buffers (one buffer for both
 * would be FIB034: MPI may write them in either order). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, x = 2, y = 0, z = 0, w = 0, cmp = 0;
    MPI_Win win;
    MPI_Request r[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    int peer = 1 - rank;
    MPI_Rput(&x, 1, MPI_INT, peer, rank, 1, MPI_INT, win, &r[0]);
    MPI_Rget(&y, 1, MPI_INT, peer, 2, 1, MPI_INT, win, &r[1]);
    MPI_Raccumulate(&x, 1, MPI_INT, peer, 3, 1, MPI_INT, MPI_SUM, win, &r[2]);
    MPI_Rget_accumulate(&x, 1, MPI_INT, &z, 1, MPI_INT, peer, 3, 1, MPI_INT, MPI_SUM, win, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    MPI_Win_flush_local(peer, win);
    MPI_Get_accumulate(&x, 1, MPI_INT, &z, 1, MPI_INT, peer, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Compare_and_swap(&x, &cmp, &w, MPI_INT, peer, 2, win);
    MPI_Win_flush_local_all(win);
    MPI_Win_flush_all(win);
    MPI_Win_sync(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    MPI_Get(&y, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_unlock(peer, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
