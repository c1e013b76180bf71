/* fib-test: nprocs=4 outcome=ok interleavings=1 probes=5 codes=- */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 5 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
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
