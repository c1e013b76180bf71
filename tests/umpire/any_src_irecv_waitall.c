/* fib-test: nprocs=3 outcome=ok interleavings=1 probes=1 codes=- */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 1 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
/* Rank 0 posts two nonblocking MPI_ANY_SOURCE receives and waits for both with
 * MPI_Waitall; ranks 1 and 2 send one message each. The first-posted receive
 * may take either message (2 branches); the second-posted one gets the other
 * (1 branch). 2 interleavings, both complete. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, bufs[2] = {0, 0};
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&bufs[0], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&bufs[1], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, sts);
        assert(bufs[0] + bufs[1] == 3);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
