/* A shared library of the program's own (libexchange.so), built by the
 * tests with debug information: its exchange receives before it sends. */
#include <mpi.h>

void exchange(int rank)
{
    int x = 0, other = 1 - rank;
    MPI_Recv(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
}
