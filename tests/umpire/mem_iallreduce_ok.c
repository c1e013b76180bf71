/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Both ranks read the send buffer of a pending MPI_Iallreduce (allowed)
 * and its receive buffer after the wait: no finding. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double in[4] = {1, 2, 3, 4}, out[4] = {0}, peek;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Iallreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    peek = in[1];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    peek += out[1];
    MPI_Finalize();
    return peek == 6.0 ? 0 : 1;
}
