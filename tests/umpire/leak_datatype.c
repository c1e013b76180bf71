/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB028 at=FIB028:18 */
/* Rank 0 sends a column of a 4x4 matrix to rank 1 with a vector datatype,
 * built anew in each of three iterations and never freed (FIB028 at
 * MPI_Type_vector, three times per rank). The contiguous datatype is
 * freed after use and is not reported. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, it;
    double a[16], col[4];
    MPI_Datatype column, row;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (it = 0; it < 16; it++) a[it] = it;
    MPI_Type_contiguous(4, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);
    for (it = 0; it < 3; it++) {
        MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &column);
        MPI_Type_commit(&column);
        if (rank == 0) {
            MPI_Send(a, 1, column, 1, it, MPI_COMM_WORLD);
        } else {
            MPI_Recv(col, 4, MPI_DOUBLE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Type_free(&row);
    MPI_Finalize();
    return 0;
}
