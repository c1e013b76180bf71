/* Every rank makes an invalid call at once, each its own: rank 0 sends
 * with a negative tag, rank 1 receives from a rank that does not exist,
 * rank 2 reduces over MPI_COMM_NULL. Which report reaches fib first is
 * timing; the check names rank 0's in every run and mode. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, -5, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL);
    MPI_Finalize();
    return 0;
}
