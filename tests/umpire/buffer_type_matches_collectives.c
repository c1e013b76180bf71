/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Collectives whose buffers match their datatypes, or that fib leaves
 * alone, must not get FIB032: MPI_IN_PLACE, int32_t gathered as MPI_INT,
 * a double broadcast as MPI_DOUBLE through the program's own macro, and a
 * deliberate reinterpretation waived with a comment. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#define REAL_T MPI_DOUBLE

int main(int argc, char **argv) {
    int rank;
    double sum[2], x = 1.0;
    int32_t mine, all[8];
    float f = 0.25f;
    int bits[2] = {0, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sum[0] = sum[1] = rank;
    mine = rank;
    MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&x, 1, REAL_T, 0, MPI_COMM_WORLD);
    /* fib: allow FIB032 -- the float's bits, read as an int on purpose */
    MPI_Bcast(&f, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(bits, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%g %d %g\n", sum[0], all[1], x);
    MPI_Finalize();
    return 0;
}
