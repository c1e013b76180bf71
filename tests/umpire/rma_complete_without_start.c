/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB035 at=FIB035:18 */
/* Rank 0 puts in the access epoch MPI_Win_start opened, completes it, and
 * completes again with no epoch open. The twin is rma_pscw_create_ok.c. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, buf[2] = {0, 0}, x = 5, peer;
    MPI_Win win; MPI_Group world, g;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &g);
    if (rank == 0) {
        MPI_Win_start(g, 0, win);
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(g, 0, win);
        MPI_Win_wait(win);
    }
    MPI_Group_free(&g); MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
