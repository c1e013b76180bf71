/* fib-test: nprocs=4 outcome=ok interleavings=6 codes=- */
/* Rank 0 takes one integer from each other rank with a row of
 * MPI_Recv(MPI_ANY_SOURCE), the k-th with room for k + 1. The receives do
 * not take any message alike (with longer messages, which receive took
 * which would decide whether one is truncated), so every one of the 3! = 6
 * orders is run. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 1; k < size; k++)
            MPI_Recv(buf, k + 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        int v[2] = {rank, rank};
        MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
