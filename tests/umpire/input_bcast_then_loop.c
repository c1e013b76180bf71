/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- flags=--,4 */
/* The correct twin of input_bcast_odd.c: rank 0 reads the step count from
 * the command line and broadcasts it before the loop, so every rank's
 * MPI_Allreduce runs as often as the same value says. Every rank's call
 * depends on the same input: no FIB040. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, steps = 0;
    double local = 1.0, sum = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        steps = atoi(argv[1]);
    MPI_Bcast(&steps, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < steps; i++) {
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        local = sum / 3.0;
    }
    if (rank == 0)
        printf("%d steps: %g\n", steps, sum);
    MPI_Finalize();
    return 0;
}
