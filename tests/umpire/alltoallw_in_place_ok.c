/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* MPI_Alltoallw with MPI_IN_PLACE: rank r's block i holds i + r ints, as
 * one element of a contiguous datatype of its own, and becomes rank i's
 * block r. MPICH 4.0's nonblocking form of this call leaves most such
 * blocks unexchanged, so fib runs the blocking one; the program aborts if
 * a block is wrong (MPICH's test alltoallw2 checks the same). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc(size * 2 * size * sizeof *buf);
    int *counts = malloc(size * sizeof *counts);
    int *displs = malloc(size * sizeof *displs);
    MPI_Datatype *types = malloc(size * sizeof *types);
    for (int i = 0; i < size; i++) {
        for (int j = 0; j < i + rank; j++)
            buf[i * 2 * size + j] = 100 * rank + 10 * i + j;
        MPI_Type_contiguous(i + rank, MPI_INT, &types[i]);
        MPI_Type_commit(&types[i]);
        counts[i] = 1;
        displs[i] = i * 2 * size * (int) sizeof(int);
    }
    MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, displs, types, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        MPI_Type_free(&types[i]);
    for (int i = 0; i < size; i++)
        for (int j = 0; j < i + rank; j++)
            if (buf[i * 2 * size + j] != 100 * i + 10 * rank + j)
                MPI_Abort(MPI_COMM_WORLD, 2);
    free(buf);
    free(counts);
    free(displs);
    free(types);
    MPI_Finalize();
    return 0;
}
