/* Two rounds of reports to rank 0, each taken with MPI_ANY_SOURCE, and a
 * barrier between them. At 2 ranks rank 1 is the only sender and its
 * reports arrive in order: the barrier orders nothing (FIB014). From 3
 * ranks on, rank 1's round-two report could be taken in round one, before
 * rank 2's, without it: the barrier is relevant (FIB015). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            for (int i = 1; i < size; i++)
                MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
        if (round == 0)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
