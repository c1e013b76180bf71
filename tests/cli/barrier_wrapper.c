/* Barriers whose output comes after the call of their function. `sync_all`
 * is a barrier wrapper: `stamp` calls it and prints right after. The second
 * barrier of `separator` is its last call: what `main` prints after calling
 * it (through `show`) is what it holds back. The reduction after the second
 * call of `separator` is the next MPI call there, not output. */
#include <mpi.h>
#include <stdio.h>

static void sync_all(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void stamp(const char *what, int rank)
{
    sync_all();
    if (rank == 0)
        printf("%s\n", what);
}

static void separator(int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("----\n");
    MPI_Barrier(MPI_COMM_WORLD);
}

static void show(int rank, int v)
{
    printf("rank %d: %d\n", rank, v);
}

int main(int argc, char **argv)
{
    int rank, v, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank * 2;
    stamp("start", rank);
    separator(rank);
    show(rank, v);
    separator(rank);
    MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
