/* fib-test: nprocs=3 outcome=ok interleavings=1 probes=1 codes=- */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 1 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
/* Rank 0 receives twice from MPI_ANY_SOURCE; ranks 1 and 2 send one message
 * each. The first wildcard may take either message (2 branches), the second
 * takes the other one (1 branch): 2 interleavings, both complete. Rank 0
 * checks that it heard from each sender exactly once. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int seen = 0;
        for (int i = 0; i < 2; i++) {
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            assert(buf == st.MPI_SOURCE);
            seen |= 1 << buf;
        }
        assert(seen == 6);
    } else {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
