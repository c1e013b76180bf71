/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:17 */
/* Both ranks exchange with MPI_Alltoallv over a datatype they freed
 * (MPI_DATATYPE_NULL): FIB012 at the call, before MPI sees it, and
 * rank 0's in every run (the check of a v form's blocks asked MPI the
 * null type's extent, whose error either rank could raise first). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, send[4] = {1, 2, 3, 4}, recv[4];
    int counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Datatype two;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    MPI_Type_free(&two);
    MPI_Alltoallv(send, counts, displs, two, recv, counts, displs, two, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
