/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Rank 1 sends to rank 0 on a duplicate of MPI_COMM_WORLD; rank 0 receives
 * from rank 1 on MPI_COMM_WORLD itself. Same ranks and tag, different
 * communicators: the messages can never match. Deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&rank, 1, MPI_INT, 0, 0, dup);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
