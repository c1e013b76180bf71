/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:17 */
/* Rank 1 receives with a datatype it freed: MPI_Type_free set the handle to
 * MPI_DATATYPE_NULL (FIB012 at the MPI_Recv, before MPI sees it). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x[2] = {1, 2};
    MPI_Datatype two;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    if (rank == 0) {
        MPI_Send(x, 1, two, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Type_free(&two);
        MPI_Recv(x, 1, two, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) MPI_Type_free(&two);
    MPI_Finalize();
    return 0;
}
