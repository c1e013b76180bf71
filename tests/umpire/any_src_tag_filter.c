/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Rank 0 receives from MPI_ANY_SOURCE with tag 1 and then with tag 2. Rank 1
 * sends tag 1, rank 2 sends tag 2. The tag restricts each wildcard to a single
 * eligible sender, so neither receive is a branch: 1 interleaving. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        assert(st.MPI_SOURCE == 1 && buf == 1);
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
        assert(st.MPI_SOURCE == 2 && buf == 2);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
