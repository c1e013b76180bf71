/* fib-test: nprocs=3 outcome=ok interleavings=2 flags=--exhaustive codes=- */
/* Rank 0 takes one message from each of ranks 1 and 2 with two
 * MPI_Recv(MPI_ANY_SOURCE) calls written out one after the other, into
 * two variables it only prints. The two receives are different sites,
 * and neither's data steers anything, but with --exhaustive both orders
 * run (any_source_row_unrolled.c is the same program without it: 1). */
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
