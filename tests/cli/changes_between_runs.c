/* A program whose behaviour depends on something other than MPI: rank 0
 * counts its runs in the file named by its first argument, and from the
 * second run on makes one more MPI call before its wildcard receives (the
 * second takes any tag: the two are no row that one run stands for). The
 * first run's wildcard has two senders; replaying it for the second finds
 * the choice at another call: a diverged replay (FIB008), not explored. */
#include <mpi.h>
#include <stdio.h>

static int runs_so_far(const char *path)
{
    int n = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = 0;
        fclose(f);
    }
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d\n", n + 1);
        fclose(f);
    }
    return n;
}

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (argc > 1 && runs_so_far(argv[1]) > 0)
            MPI_Barrier(MPI_COMM_SELF);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
