/* Built by the tests with plain mpicc.mpich and checked with `fib run`:
 * both ranks receive before they send, so neither receive ever matches. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Recv(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
