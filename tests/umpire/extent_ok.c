/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* The correct twins of the extent_*.c programs: every buffer holds what
 * its count and datatype cover, to the last byte. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double a[8] = {0}, b[8];
    int e[10] = {0}, two[2] = {1, 2}, x = 7, y;
    int *m = malloc(10 * sizeof(int));
    double *c = calloc(16, sizeof(double));
    MPI_Request req;
    if (rank == 0) {
        MPI_Send(a, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        MPI_Send(two, 2, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(e, 10, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Send(b, 0, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        MPI_Send(a + 4, 4, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(b, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&e[8], 2, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(m, 10, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(c, 16, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&a[4], 4, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* The root's buffer for two ints from each process. */
    int *all = malloc(2 * size * sizeof(int));
    MPI_Gather(two, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    /* Blocks at displacement 4 * i, in a buffer of 4 * size ints. */
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *spread = malloc(4 * size * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
        displs[i] = 4 * i;
    }
    MPI_Gatherv(two, 2, MPI_INT, spread, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    free(spread);
    free(displs);
    free(counts);
    free(all);
    free(c);
    free(m);
    MPI_Finalize();
    return 0;
}
