/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB031 at=FIB031:14 */
/* Rank 0 sums while the other ranks take the maximum in the same
 * MPI_Iallreduce: MPI does not check that the operations agree (FIB031 at
 * rank 0's call, labelling the others'). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, r = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op op = rank == 0 ? MPI_SUM : MPI_MAX;
    /* Meant to be MPI_SUM everywhere. */
    MPI_Iallreduce(&rank, &r, 1, MPI_INT, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
