/* Barriers no run reaches at 2 ranks and no arguments, each kept away by a
 * condition of another kind: a variable set to 0 unless the build defines
 * DEBUG, a macro defined as 0, the command line, the process count. */
#include <mpi.h>
#include <stdio.h>

/* #define DEBUG */
#define TRACE 0

int main(int argc, char **argv)
{
    int rank, size;
#ifdef DEBUG
    int debug = 1;
#else
    int debug = 0;
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (debug)
        MPI_Barrier(MPI_COMM_WORLD);
    if (TRACE)
        MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 2)
        MPI_Barrier(MPI_COMM_WORLD);
    if (size > 4)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("done\n");
    MPI_Finalize();
    return 0;
}
