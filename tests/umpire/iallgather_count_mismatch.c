/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB031 at=FIB031:19 */
/* Every rank sends one int to an MPI_Iallgather, but rank 1 receives 2
 * from each rank: the ranks' receive counts differ (FIB031 at rank 0's
 * call, labelling rank 1's). MPI may hang, fail or leave a buffer half
 * written: Open MPI sends rank 1's block of 2 to rank 0, which expects 1,
 * and finds the truncation while the ranks wait. The program asks for
 * errors to be returned, so that the error waits for the MPI_Wait, which
 * fib answers only after it has compared the calls. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, n, mine = 7, all[4] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Meant to be 1 everywhere. */
    n = rank == 1 ? 2 : 1;
    MPI_Iallgather(&mine, 1, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
