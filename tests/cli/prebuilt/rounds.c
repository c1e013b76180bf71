/* Built by the tests with plain mpicc.mpich and checked with `fib run`.
 * Rank 0 takes two rounds of messages with MPI_ANY_SOURCE. The first
 * barrier keeps round two's sends away from round one's receives
 * (relevant); nothing crosses the second (irrelevant). */
#include <mpi.h>

static void round_of(int rank, int size)
{
    int v = rank;
    if (rank == 0) {
        for (int i = 1; i < size; i++)
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    round_of(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    round_of(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
