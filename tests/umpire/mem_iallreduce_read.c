/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Both ranks read the receive buffer of a pending MPI_Iallreduce before
 * the wait: FIB034 (one finding, both ranks). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double in[4] = {1, 2, 3, 4}, out[4] = {0}, peek;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Iallreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    peek = out[1];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return peek > 100.0;
}
