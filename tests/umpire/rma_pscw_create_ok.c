/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* PSCW on a window made by MPI_Win_create: rank 1 posts to rank 0 and
 * waits; rank 0 starts, puts, gets and completes; then the reverse. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, buf[2] = {0, 0}, x, y = -1, peer;
    MPI_Win win; MPI_Group world, g;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = 10 + rank;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &g);
    for (int round = 0; round < 2; round++) {
        if (rank == round) {
            MPI_Win_start(g, 0, win);
            MPI_Put(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
            MPI_Get(&y, 1, MPI_INT, peer, 1, 1, MPI_INT, win);
            MPI_Win_complete(win);
        } else {
            MPI_Win_post(g, 0, win);
            MPI_Win_wait(win);
        }
    }
    if (buf[0] != 10 + peer || y != 0) {
        printf("rank %d: wrong values %d %d\n", rank, buf[0], y);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Group_free(&g); MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
