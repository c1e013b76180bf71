/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* Three ranks make a periodic ring and start an MPI_Ineighbor_allgather of
 * their rank. Before waiting for it, ranks 1 and 2 each send rank 0 a
 * message, which rank 0 takes with an MPI_ANY_SOURCE receive and then the
 * other one by name. The nonblocking collective is no fence: the wildcard
 * may take either message (2 interleavings), and in both the wait
 * completes the allgather with both neighbours' ranks: ok. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, dims[1] = {0}, periods[1] = {1}, left, right, v, x, y;
    int got[2] = {-1, -1};
    MPI_Comm ring;
    MPI_Request req;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    MPI_Ineighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, ring, &req);
    if (rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, ring, &st);
        MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE == 1 ? 2 : 1, 0, ring,
                 MPI_STATUS_IGNORE);
        if (x + y != 30)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else {
        v = 10 * rank;
        MPI_Send(&v, 1, MPI_INT, 0, 0, ring);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (got[0] != left || got[1] != right)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
