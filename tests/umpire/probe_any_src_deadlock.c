/* fib-test: nprocs=3 outcome=deadlock interleavings=2 codes=FIB001 */
/* Rank 0 probes with MPI_ANY_SOURCE, receives the probed message from the
 * probed source, then receives from rank 2. Ranks 1 and 2 send one message
 * each. The wildcard probe is a choice with two eligible senders. If it sees
 * rank 1's message, the two receives complete; if it sees rank 2's, the probed
 * receive consumes rank 2's only message and the receive from rank 2 hangs. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Recv(&buf, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
