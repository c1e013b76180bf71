/* fib-test: nprocs=4 outcome=deadlock interleavings=1 codes=FIB009 */
/* Two halves (ranks 0, 1 and ranks 2, 3) joined by MPI_Intercomm_create.
 * The first half calls MPI_Allreduce on the intercommunicator, the second
 * MPI_Allgather: a collective on an intercommunicator spans both groups,
 * and its members called different ones. Collective mismatch (FIB009),
 * 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, out[2];
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 1, &inter);
    if (side == 0)
        MPI_Allreduce(&rank, out, 1, MPI_INT, MPI_SUM, inter);
    else
        MPI_Allgather(&rank, 1, MPI_INT, out, 1, MPI_INT, inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
