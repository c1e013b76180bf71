/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 blocks in MPI_Probe for rank 1's message, sizes the receive with
 * MPI_Get_count, and receives it from the probed source and tag. The probe
 * names its source: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, count = 0, buf[6] = {0};
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        assert(count == 6 && st.MPI_TAG == 8);
        MPI_Recv(buf, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf[5] == 50);
    } else {
        for (int i = 0; i < 6; i++)
            buf[i] = 10 * i;
        MPI_Send(buf, 6, MPI_INT, 0, 8, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
