/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* Rank 0 posts a wildcard receive and cancels it before anyone has sent
 * (ranks 1 and 2 send only after rank 0's go-ahead): the receive is
 * cancelled and takes no message, so the two later wildcard receives get
 * both messages, in either order: 2 interleavings, ok. A cancelled request
 * still needs completing: here MPI_Test completes it at once. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = -1, buf = 0, go = 1, seen = 0;
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Test(&req, &flag, &st);
        assert(flag == 1);
        MPI_Test_cancelled(&st, &flag);
        assert(flag == 1);
        MPI_Send(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&go, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        for (int i = 0; i < 2; i++) {
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            seen |= 1 << buf;
        }
        assert(seen == 6);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
