/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 sends a message with tag 3 and then one with tag 9; rank 0 receives
 * twice from rank 1 with MPI_ANY_TAG. A specific source with MPI_ANY_TAG is not
 * a choice point, and non-overtaking gives the tag-3 message first: 1
 * interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        assert(st.MPI_TAG == 3 && buf == 3);
        MPI_Recv(&buf, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        assert(st.MPI_TAG == 9 && buf == 9);
    } else {
        buf = 3;
        MPI_Send(&buf, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        buf = 9;
        MPI_Send(&buf, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
