/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Only rank 1 makes the window; rank 0 goes straight to MPI_Finalize.
 * MPI_Win_create is collective: rank 1 waits in it forever. Deadlock, 1
 * interleaving, in recorded runs as in scheduled ones. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0};
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_free(&win);
    }
    MPI_Finalize();
    return 0;
}
