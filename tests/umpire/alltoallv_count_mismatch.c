/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB031 at=FIB031:26 */
/* Each rank sends rank j as many ints as j's rank plus one, but rank 2
 * expects two ints from rank 0, which sends it three. MPI_Alltoallv's
 * arguments are each rank's counts for every other: rank 0's count for
 * rank 2 must be rank 2's count from rank 0. MPI does not compare them
 * (rank 2 may get a truncation error, or read less than was sent):
 * FIB031 at the MPI_Alltoallv, rank 0 sending 3 MPI_INT to rank 2 and
 * rank 2 receiving 2 MPI_INT from rank 0. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, j, out[9], in[9];
    int scounts[3], sdispls[3], rcounts[3], rdispls[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (j = 0; j < 9; j++) out[j] = rank;
    for (j = 0; j < size; j++) {
        scounts[j] = j + 1;
        sdispls[j] = 3 * j;
        rcounts[j] = rank + 1;
        rdispls[j] = 3 * j;
    }
    /* The bug: rank 2 counts two ints from rank 0. */
    if (rank == 2) rcounts[0] = 2;
    MPI_Alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
