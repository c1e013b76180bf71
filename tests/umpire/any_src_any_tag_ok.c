/* fib-test: nprocs=3 outcome=ok interleavings=1 probes=1 codes=- */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 1 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
/* Rank 0 receives twice with MPI_ANY_SOURCE and MPI_ANY_TAG; rank 1 sends with
 * tag 10 and rank 2 with tag 20. The first receive may take either (2
 * branches), the second the other: 2 interleavings. The status carries the
 * matching source and tag in both. */
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
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            assert(st.MPI_TAG == 10 * st.MPI_SOURCE && buf == st.MPI_SOURCE);
        }
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 10 * rank, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
