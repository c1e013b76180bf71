/* fib: -n 3
 *
 * Rank 0 collects two rounds of reports from the other ranks, each round
 * with MPI_ANY_SOURCE. The first barrier keeps round-two reports out of the
 * round-one receives: without it, rank 0 could take both of rank 1's
 * reports in round one, so fib finds it relevant and names that receive
 * and that send. Nothing crosses the second barrier: fib finds it
 * irrelevant, a line you can delete. */
#include <mpi.h>
#include <stdio.h>

static void collect(int rank, int size, int round, int *sum)
{
    int v = rank;
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            *sum += round * v;
        }
    } else {
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    collect(rank, size, 1, &sum);
    MPI_Barrier(MPI_COMM_WORLD);
    collect(rank, size, 10, &sum);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("weighted sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
