/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 posts a receive from rank 1 and polls it with
 * MPI_Request_get_status, which leaves the request active: the status it
 * reports once the message is in is the message's, and the request is
 * still there for the MPI_Wait that completes and frees it. Rank 1 sends
 * only once it has rank 0's go-ahead, so the first polls may fail. The receive names its
 * source: 1 interleaving, ok, and no leaked request. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, count = 0, buf[4] = {0};
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(buf, 4, MPI_INT, 1, 5, MPI_COMM_WORLD, &req);
        MPI_Send(&flag, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
        while (!flag)
            MPI_Request_get_status(req, &flag, &st);
        assert(req != MPI_REQUEST_NULL);
        MPI_Get_count(&st, MPI_INT, &count);
        assert(count == 3 && st.MPI_SOURCE == 1 && st.MPI_TAG == 5);
        MPI_Wait(&req, &st);
        assert(req == MPI_REQUEST_NULL && buf[2] == 12);
        /* On a null request it answers at once. */
        flag = 0;
        MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
        assert(flag == 1);
    } else {
        for (int i = 0; i < 3; i++)
            buf[i] = 10 + i;
        MPI_Recv(&count, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 3, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
