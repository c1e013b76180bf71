/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* Rank 0 twice probes with MPI_ANY_SOURCE and MPI_ANY_TAG, sizes its buffer
 * with MPI_Get_count, and receives exactly the probed message (source and tag
 * from the status). Ranks 1 and 2 send messages of different lengths. The
 * first probe has two candidates, the second one: 2 interleavings, both ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, count, buf[8] = {0};
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 2; i++) {
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            assert(count == st.MPI_SOURCE * 2);
            MPI_Recv(buf, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            assert(buf[0] == st.MPI_SOURCE);
        }
    } else {
        for (int i = 0; i < 8; i++)
            buf[i] = rank;
        MPI_Send(buf, rank * 2, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
