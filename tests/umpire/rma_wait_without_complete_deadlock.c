/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 1 posts an exposure epoch to rank 0 and waits for it, but rank 0
 * never starts or completes an access epoch: MPI_Win_wait never returns. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, *buf, peer;
    MPI_Win win; MPI_Group world, g;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &g);
    if (rank == 1) {
        MPI_Win_post(g, 0, win);
        MPI_Win_wait(win);
    }
    MPI_Group_free(&g); MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
