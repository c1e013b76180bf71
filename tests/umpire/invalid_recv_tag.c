/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:16 */
/* Rank 1 receives with tag -5: only MPI_ANY_TAG may be negative on a
 * receive (FIB012 at the MPI_Recv, before MPI sees it). Rank 0's send
 * with a proper tag is fine. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else {
        /* A typo: the sender's tag is 5. */
        int tag = -5;
        MPI_Recv(&x, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
