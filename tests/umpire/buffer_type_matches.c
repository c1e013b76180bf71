/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Buffers whose C type is what their datatype describes, or that fib
 * leaves alone, must not get FIB032: a struct sent as MPI_BYTE, a union,
 * int32_t as MPI_INT32_T and as MPI_INT, size_t as MPI_UNSIGNED_LONG, a
 * void * buffer, a malloc'd double * as MPI_DOUBLE, chars as MPI_CHAR. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct point {
    int id;
    double x, y;
};

union word {
    int i;
    float f;
};

int main(int argc, char **argv) {
    int rank;
    struct point p = {1, 0.5, 1.5};
    union word w;
    int32_t i32[2] = {3, 4};
    size_t n = 42;
    double *d = malloc(4 * sizeof *d);
    void *raw = d;
    char text[6] = "hello";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    w.i = 5;
    for (int k = 0; k < 4; k++)
        d[k] = k;
    if (rank == 0) {
        MPI_Send(&p, sizeof p, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Send(&w, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(i32, 2, MPI_INT32_T, 1, 2, MPI_COMM_WORLD);
        MPI_Send(i32, 2, MPI_INT, 1, 3, MPI_COMM_WORLD);
        MPI_Send(&n, 1, MPI_UNSIGNED_LONG, 1, 4, MPI_COMM_WORLD);
        MPI_Send(raw, 4, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
        MPI_Send(d, 4, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD);
        MPI_Send(text, 6, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&p, sizeof p, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&w, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(i32, 2, MPI_INT32_T, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&i32[0], 2, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&n, 1, MPI_UNSIGNED_LONG, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(raw, 4, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(d + 0, 4, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(text, 6, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%d %zu %s %g\n", p.id, n, text, d[3]);
    }
    free(d);
    MPI_Finalize();
    return 0;
}
