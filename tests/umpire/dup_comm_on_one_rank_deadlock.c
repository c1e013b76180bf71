/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 0 duplicates MPI_COMM_WORLD; rank 1 goes straight to
 * MPI_Finalize. MPI_Comm_dup is collective: rank 0 waits in it for rank 1
 * forever, inside MPI, without a call of its own to poll. Deadlock, 1
 * interleaving, in recorded runs as in scheduled ones. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Finalize();
    return 0;
}
