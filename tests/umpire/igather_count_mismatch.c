/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB031 at=FIB031:17 */
/* The root of an MPI_Igather receives 2 ints from each rank, but rank 2
 * sends 1: its send count is not the root's receive count (FIB031 at rank
 * 0's call, labelling rank 2's). MPI may fail with a truncation error, or
 * leave part of the root's buffer unwritten. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, mine[2] = {1, 2}, all[6] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Meant to be 2 everywhere. */
    int n = rank == 2 ? 1 : 2;
    /* The root's own block is in place: only the others' send counts are
     * compared with its receive count. */
    MPI_Igather(rank == 0 ? MPI_IN_PLACE : mine, n, MPI_INT, all, 2, MPI_INT,
                0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
