/* Purposes that a called function does not have. `measure` lines the ranks
 * up with its own barrier before it reads the clock, so the barrier before
 * its call times nothing. `fill`'s only output is under `if (DEBUG)` with
 * `DEBUG` defined as 0: it never prints, so the barrier before its call
 * orders no output. */
#include <mpi.h>
#include <stdio.h>

#define DEBUG 0
#define N 4

static double measure(int rank)
{
    double t;
    int x = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return MPI_Wtime() - t + x * 0.0;
}

static void fill(int *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        a[i] = i;
    if (DEBUG)
        printf("filled %d\n", n);
}

int main(int argc, char **argv)
{
    int rank, a[N], b[N];
    double t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    t = measure(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    fill(a, N);
    MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return t < 0.0;
}
