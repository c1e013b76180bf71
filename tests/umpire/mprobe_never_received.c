/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=FIB020 at=FIB020:27 */
/* Rank 0 takes one message with a wildcard MPI_Mprobe and receives it
 * with MPI_Mrecv only when it has tag 1; ranks 1 and 2 each send one
 * message, rank 1's with tag 1 and rank 2's with tag 2, and rank 0 then
 * receives the other message by name. When the probe takes rank 2's
 * message, the probed message is dropped: no MPI_Mrecv receives it, and
 * the named receive is still satisfied by the other sender. Two
 * interleavings; the one where the probe takes rank 2's message leaves it
 * unreceived (FIB020, labelling the probe). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Status st;
    MPI_Message msg;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
        if (st.MPI_TAG == 1)
            MPI_Mrecv(&x, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE == 1 ? 2 : 1, MPI_ANY_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else {
        x = rank;
        MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
