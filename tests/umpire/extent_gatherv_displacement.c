/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB039 at=FIB039:19 */
/* MPI_Gatherv places rank i's two ints at displacement 4 * i in a
 * malloc'd buffer of eight ints: rank 2's block, at 8, is past its end. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, mine[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *all = malloc(8 * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
        displs[i] = 4 * i;
    }
    mine[0] = mine[1] = rank;
    MPI_Gatherv(mine, 2, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(displs);
    free(counts);
    MPI_Finalize();
    return 0;
}
