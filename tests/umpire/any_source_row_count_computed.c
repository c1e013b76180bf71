/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Rank 0 takes one message from each other rank with a row of
 * MPI_Recv(MPI_ANY_SOURCE) whose count the program computes from the
 * process count: every receive of the row asks for the same count of the
 * same datatype, so one run stands for the 3! = 6 orders. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {0}, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = size > 2 ? 2 : 1;
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Recv(buf, n, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += buf[0];
        }
        printf("sum %d\n", sum);
    } else {
        int v[2] = {rank, rank};
        MPI_Send(v, n, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
