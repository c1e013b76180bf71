/* fib-test: nprocs=4 outcome=ok interleavings=6 codes=- */
/* Rank 0 receives three times from MPI_ANY_SOURCE; ranks 1, 2 and 3 send one
 * message each. The wildcards see 3, then 2, then 1 eligible senders: 3! = 6
 * interleavings, every one of which completes. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int sum = 0;
        for (int i = 0; i < 3; i++) {
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += buf;
        }
        assert(sum == 6);
    } else {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
