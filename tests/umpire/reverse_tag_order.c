/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB023 */
/* Rank 1 sends tag 1 and then tag 2; rank 0 receives tag 2 first and tag 1
 * second. Messages with different tags may be received out of order, and with
 * buffered sends rank 1 is not held by the first send: ok, 1 interleaving. A
 * verifier that matches a receive only against the sender's first pending send
 * reports a false deadlock.
 * Without buffering the same calls deadlock, so fib warns (FIB023).
 */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf == 2);
        MPI_Recv(&buf, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf == 1);
    } else {
        buf = 1;
        MPI_Send(&buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        buf = 2;
        MPI_Send(&buf, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
