/* Built by the tests without debug information, linked with
 * libexchange.so (exchange.c), whose exchange deadlocks. */
#include <mpi.h>

void exchange(int rank);

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    exchange(rank);
    MPI_Finalize();
    return 0;
}
