/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 posts a receive for tag 9, which nobody sends, and cancels it:
 * the wait completes it, MPI_Test_cancelled says it was cancelled, and the
 * message rank 1 sends with tag 0 goes to the next receive. Rank 0 also
 * cancels a receive that already got its message (tag 1): that cancel
 * fails, and the receive completes with its data. The sends wait for rank
 * 0's go-ahead, so both cancels are decided before any message arrives that
 * could match the first receive: 1 interleaving, ok, no leak. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = -1, buf = 0, go = 1;
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        assert(flag == 1 && req == MPI_REQUEST_NULL);
        MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf == 10);
        MPI_Irecv(&buf, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
        MPI_Recv(&go, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        assert(flag == 0 && buf == 11 && st.MPI_TAG == 1);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        buf = 10;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        buf = 11;
        MPI_Send(&buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
