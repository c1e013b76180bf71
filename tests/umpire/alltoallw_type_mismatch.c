/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB031 at=FIB031:22 */
/* An MPI_Alltoallw whose ranks send each other two doubles, but rank 1
 * takes rank 0's block as four MPI_INTs: as many bytes, another datatype.
 * FIB031 at the MPI_Alltoallw: rank 0 sends 2 MPI_DOUBLE to rank 1, rank
 * 1 receives 4 MPI_INT from rank 0. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, j;
    double out[2][2], in[2][2];
    int counts[2] = {2, 2}, displs[2] = {0, 16}, rcounts[2] = {2, 2};
    MPI_Datatype st[2] = {MPI_DOUBLE, MPI_DOUBLE}, rt[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (j = 0; j < 2; j++) out[j][0] = out[j][1] = rank;
    if (rank == 1) {
        /* The bug: rank 0's doubles read as ints. */
        rt[0] = MPI_INT;
        rcounts[0] = 4;
    }

    MPI_Alltoallw(out, counts, displs, st, in, rcounts, displs, rt, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
