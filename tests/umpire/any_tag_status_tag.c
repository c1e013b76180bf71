/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 picks a tag (42) and sends a length header and then the payload with
 * that tag. Rank 0 receives the header with MPI_ANY_TAG from rank 1, reads the
 * tag from the status and receives the payload with that tag. No wildcard
 * source, so 1 interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, n = 0, data[4] = {0};
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&n, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        assert(n == 4 && st.MPI_TAG == 42);
        MPI_Recv(data, n, MPI_INT, 1, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(data[3] == 3);
    } else {
        int tag = 40 + 2;
        n = 4;
        for (int i = 0; i < 4; i++)
            data[i] = i;
        MPI_Send(&n, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
        MPI_Send(data, n, MPI_INT, 0, tag, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
