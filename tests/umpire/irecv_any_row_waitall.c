/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Rank 0 posts a row of three MPI_Irecv from MPI_ANY_SOURCE into its own
 * slots, then MPI_Waitall; ranks 1-3 send one message each. Nothing the
 * program decides depends on what it receives, so which slot gets which
 * message changes nothing else (the sum is printed, not tested: a test of
 * received data would decide the run): one run stands for the 3! = 6 orders
 * (--exhaustive runs all 6). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, buf[3] = {0}, sum = 0;
    MPI_Request req[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 0; i < size - 1; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(size - 1, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < size - 1; i++)
            sum += buf[i];
        printf("sum %d\n", sum);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
