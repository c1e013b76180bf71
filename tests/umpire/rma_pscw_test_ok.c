/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* PSCW: rank 1 posts to rank 0 and polls with MPI_Win_test; rank 0 starts,
 * puts and completes. Failing tests are answered with every rank waiting. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, *buf, x = 5, peer;
    MPI_Win win; MPI_Group world, g;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &g);
    if (rank == 0) {
        MPI_Win_start(g, 0, win);
        MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    } else {
        int flag = 0;
        MPI_Win_post(g, 0, win);
        while (!flag) MPI_Win_test(win, &flag);
    }
    MPI_Group_free(&g); MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
