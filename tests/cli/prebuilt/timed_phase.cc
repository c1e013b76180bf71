// fib run on a binary whose sources are at hand: the first barrier lines the
// ranks up before the clock is read, the second orders rank 0's output,
// and the third, compiled in only with -DCHECKPOINT, orders nothing.
#include <mpi.h>
#include <cstdio>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("exchange took %g s\n", MPI_Wtime() - start);
#ifdef CHECKPOINT
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
