/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB014 */
/* Every rank starts an MPI_Ibarrier, does some local work, and completes
 * it with MPI_Wait. The call returns a request at once; the wait returns
 * once all three ranks have entered the barrier. No wildcard: 1
 * interleaving, and the Ibarrier, a barrier for fib's barrier analysis,
 * orders no message: irrelevant (FIB014). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i, sum = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (i = 0; i < 1000; i++)
        sum += i * rank;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return sum < 0;
}
