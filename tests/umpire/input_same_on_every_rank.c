/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- flags=--,-v */
/* Every rank reads the same command line and takes the same branch: the
 * barrier runs only with -v, but on every rank alike. No FIB040. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, here = 1, count = 0;
    int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (verbose) {
        MPI_Reduce(&here, &count, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%d ranks are here\n", count);
    }
    MPI_Finalize();
    return 0;
}
