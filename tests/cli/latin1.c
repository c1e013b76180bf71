/* fib: -n 2 */
/* Written in Latin-1, as older code often is: café, naïve. A source that
 * is not valid UTF-8 is still a program, and its sites keep their lines. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* « reçu » */
    MPI_Finalize();
    return 0;
}
