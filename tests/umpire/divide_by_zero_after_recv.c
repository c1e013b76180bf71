/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB002 */
/* Rank 0 sends a divisor of 0 to rank 1, which divides by it and dies with
 * SIGFPE (integer division by zero traps on x86). Deterministic: 1
 * interleaving, crash on rank 1. */
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    volatile int d = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int zero = 0;
        MPI_Send(&zero, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        int got = 1;
        MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        d = got;
        printf("%d\n", 100 / d);
    }
    MPI_Finalize();
    return 0;
}
