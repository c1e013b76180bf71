/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB020,FIB023 */
/* Rank 0 sends two messages with tags 1 and 2; rank 1 receives only tag 1.
 * With buffering the send of tag 2 returns, the run completes, and the
 * message is still in flight at MPI_Finalize (FIB020); without buffering the
 * send of tag 2 would wait forever (FIB023). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, a = 1, b = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
