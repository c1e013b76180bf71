/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 polls with MPI_Improbe for a message from rank 1 with tag 3, then
 * receives it with MPI_Imrecv and MPI_Wait; a second MPI_Improbe on the
 * same source and tag finds the second message only, and MPI_Mrecv gets
 * it. A probe of MPI_PROC_NULL returns MPI_MESSAGE_NO_PROC, whose receive
 * completes at once. The probes name their source, so nothing is a choice,
 * and the polls must end: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, count = 0, buf[5] = {0};
    MPI_Status st;
    MPI_Message msg;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        while (!flag)
            MPI_Improbe(1, 3, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        assert(count == 5);
        MPI_Imrecv(buf, count, MPI_INT, &msg, &req);
        MPI_Wait(&req, &st);
        assert(buf[4] == 4 && st.MPI_TAG == 3);
        flag = 0;
        while (!flag)
            MPI_Improbe(1, 3, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        assert(count == 2);
        MPI_Mrecv(buf, count, MPI_INT, &msg, MPI_STATUS_IGNORE);
        assert(buf[1] == 7);
        MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st);
        assert(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
        MPI_Mrecv(buf, 0, MPI_INT, &msg, &st);
        assert(st.MPI_SOURCE == MPI_PROC_NULL);
    } else {
        for (int i = 0; i < 5; i++)
            buf[i] = i;
        MPI_Send(buf, 5, MPI_INT, 0, 3, MPI_COMM_WORLD);
        buf[1] = 7;
        MPI_Send(buf, 2, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
