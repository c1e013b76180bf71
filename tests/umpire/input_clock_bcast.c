/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB040 at=FIB040:18 */
/* Rank 0 joins the broadcast only while it is within its time budget; rank 1
 * always does. Each rank's clock is its own: on a slow day rank 0 skips
 * the broadcast and rank 1 waits. FIB040 names the clock. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, go = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double start = MPI_Wtime();
    double budget = 600.0;
    if (rank == 0) {
        double used = MPI_Wtime() - start;
        printf("used %g s\n", used);
        if (used < budget)
            MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
