/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=- */
/* Rank 0 takes a message from MPI_ANY_SOURCE with MPI_Mprobe, sizes its
 * buffer with MPI_Get_count and receives it with MPI_Mrecv on the message
 * handle; then a wildcard MPI_Recv gets the other one. Ranks 1 and 2 send
 * rank + 1 ints each. The matched probe is a choice between the two senders
 * (2 branches); the message it took is no longer there for the receive,
 * which gets the other (1 branch): 2 interleavings, both complete. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, count = 0, buf[3] = {0};
    MPI_Status st;
    MPI_Message msg;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Mprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &msg, &st);
        int first = st.MPI_SOURCE;
        MPI_Get_count(&st, MPI_INT, &count);
        assert(count == first + 1);
        MPI_Mrecv(buf, count, MPI_INT, &msg, &st);
        assert(msg == MPI_MESSAGE_NULL);
        assert(st.MPI_SOURCE == first && buf[count - 1] == first);
        MPI_Recv(buf, 3, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        assert(st.MPI_SOURCE == 3 - first && buf[0] == 3 - first);
    } else {
        for (int i = 0; i < 3; i++)
            buf[i] = rank;
        MPI_Send(buf, rank + 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
