/* fib-test: nprocs=2 outcome=ok interleavings=2 codes=FIB020 at=FIB020:31 */
/* Rank 0 posts a wildcard receive, learns that rank 1 has sent (its tag 1
 * message comes after the tag 0 one), and only then cancels the receive.
 * MPI may still cancel it: the message can be on its way. fib explores
 * both: the receive gets the message (the cancel fails), or it is
 * cancelled and the message is never received, as this program forgets
 * to receive it then: 2 interleavings, FIB020 on rank 1's send in the
 * second. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = -1, buf = 0, go = 0;
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
        MPI_Recv(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        if (flag)
            assert(req == MPI_REQUEST_NULL);
        else
            assert(buf == 7 && st.MPI_SOURCE == 1);
    } else {
        buf = 7;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        go = 1;
        MPI_Send(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
