/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB032 at=FIB032:16 */
/* Rank 0 broadcasts a pair of ints as one MPI_DOUBLE with MPI_Ibcast:
 * eight bytes either way, so MPI moves them without a word, and every
 * rank agrees on the datatype; but the buffer holds ints. FIB032 at the
 * buffer of the MPI_Ibcast. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank;
    int v[2] = {0, 0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) { v[0] = 7; v[1] = 9; }
    MPI_Ibcast(v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("%d %d\n", v[0], v[1]);
    MPI_Finalize();
    return 0;
}
