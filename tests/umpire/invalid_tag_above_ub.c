/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB012 at=FIB012:19 */
/* Rank 0 sends with a tag one above MPI_TAG_UB, which MPI does not allow
 * and which some MPI libraries do not check (FIB012 at the MPI_Send). Open
 * MPI's bound is INT_MAX, above which no int lies: under it the program
 * sends with tag -7 instead, which is invalid on a send too. */
#include <limits.h>
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1, flag, tag = -7;
    int *ub;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (flag && *ub < INT_MAX) tag = *ub + 1;
    if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&x, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
