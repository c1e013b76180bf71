/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* A tiny server: rank 0 receives a request from MPI_ANY_SOURCE and replies to
 * the source named in the status, twice. Ranks 1 and 2 each send a request and
 * wait for their reply. The first wildcard sees both requests (2 branches),
 * the second only the remaining one: 2 interleavings, both complete because
 * each reply goes to the rank that asked. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 2; i++) {
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            buf *= 10;
            MPI_Send(&buf, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
        }
    } else {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf == rank * 10);
    }
    MPI_Finalize();
    return 0;
}
