/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB040 at=FIB040:18 flags=--,3 */
/* Rank 0 broadcasts only when its first argument is odd; the other ranks
 * always take part. Run with 3 every rank broadcasts and the run passes,
 * but an even argument would leave ranks 1 and 2 waiting in MPI_Bcast.
 * fib warns at rank 0's call (FIB040), naming the condition and the
 * command line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        x = 42;
        if (atoi(argv[1]) % 2)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    printf("rank %d: %d\n", rank, x);
    MPI_Finalize();
    return 0;
}
