/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Ranks 1 and 2 send two messages each to rank 0, which takes all four
 * with a row of MPI_Recv(MPI_ANY_SOURCE) and only adds them up. Each
 * sender's messages arrive in its order, so the row has 4!/(2!2!) = 6
 * orders (any_source_row_several_per_sender_exhaustive.c runs them all);
 * nothing depends on which, and one run stands for them. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, v, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 0; k < 2 * (size - 1); k++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += v;
        }
        printf("sum %d\n", sum);
    } else {
        for (int m = 0; m < 2; m++) {
            v = 10 * rank + m;
            MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
