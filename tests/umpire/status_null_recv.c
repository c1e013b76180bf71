/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB033 at=FIB033:17 */
/* Rank 1 passes NULL as MPI_Recv's status instead of MPI_STATUS_IGNORE.
 * Open MPI's MPI_STATUS_IGNORE is a null pointer, so the program runs
 * there; MPICH's is (MPI_Status *)1 and the call fails. fib reports it
 * from the source before running (FIB033 at the call), under either MPI
 * alike, and the run itself is fine. */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv) {
    int rank, x = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    }
    MPI_Finalize();
    return 0;
}
