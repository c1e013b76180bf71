/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB021 */
/* Rank 0 sends four ints; rank 1 receives into a buffer of two. The MPI
 * library raises "Message truncated" in rank 1's MPI_Recv, reported with its
 * site (FIB021). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int a[4] = {1, 2, 3, 4};
        MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        int b[2];
        MPI_Recv(b, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
