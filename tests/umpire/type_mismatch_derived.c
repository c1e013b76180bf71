/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB030 at=FIB030:22 */
/* Rank 0 sends a column of a matrix of ints with an MPI_Type_vector of
 * MPI_INT; rank 1 receives it as four MPI_FLOATs. A derived datatype counts
 * as the predefined one it is built from, so this is an MPI_INT received
 * as MPI_FLOAT (FIB030 at the MPI_Recv). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, i, a[16];
    float col[4];
    MPI_Datatype column;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < 16; i++) a[i] = i;
    MPI_Type_vector(4, 1, 4, MPI_INT, &column);
    MPI_Type_commit(&column);
    if (rank == 0) {
        MPI_Send(a, 1, column, 1, 0, MPI_COMM_WORLD);
    } else {
        /* The receiver expects floats: the bits of ints arrive. */

        MPI_Recv(col, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
