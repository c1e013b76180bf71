/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Rank 0 takes one message from each of ranks 1 and 2 with two
 * MPI_Recv(MPI_ANY_SOURCE) calls written out one after the other, into
 * two variables it only prints. The two receives are different sites,
 * but neither's data steers anything: one run stands for both orders
 * (any_source_row_unrolled_exhaustive.c runs them). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("got %d and %d\n", a, b);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
