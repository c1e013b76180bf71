/* fib-test: nprocs=4 outcome=deadlock interleavings=1 codes=FIB001 */
/* Two halves (ranks 0, 1 and ranks 2, 3) joined by MPI_Intercomm_create.
 * Each half's rank 0 (world ranks 0 and 2) MPI_Ssends to remote rank 0
 * before receiving from it: a synchronous send needs its receive, so both
 * wait in MPI_Ssend forever while ranks 1 and 3 wait in MPI_Finalize.
 * Deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, buf = 0;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 5, &inter);
    if (rank % 2 == 0) {
        MPI_Ssend(&rank, 1, MPI_INT, 0, 0, inter);
        MPI_Recv(&buf, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
