/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=FIB019 */
/* Two halves (ranks 0, 1 and ranks 2, 3) joined by MPI_Intercomm_create;
 * each half's rank 0 sends one message across. The local communicators
 * are freed, the intercommunicator never is: one FIB019 finding, at the
 * MPI_Intercomm_create. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, buf = 0;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 2, &inter);
    if (rank == 0)
        MPI_Send(&rank, 1, MPI_INT, 0, 0, inter);
    else if (rank == 2)
        MPI_Recv(&buf, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
