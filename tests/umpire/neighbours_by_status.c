/* fib-test: nprocs=4 outcome=ok interleavings=1 probes=4 codes=FIB014 at=FIB014:66 */
/* Each rank of a ring knows its two neighbours and learns who sends to it
 * from the statuses of a row of MPI_Irecv(MPI_ANY_SOURCE): the sources fill
 * a list in arrival order, which is merged by membership into the list of
 * known neighbours (it adds nothing), and that list then names the peers of
 * an exchange. Every order of each rank's row gives the same list, so the
 * same calls with the same data: one run stands for the 2^4 = 16 orders of
 * the four rows (neighbours_by_status_exhaustive.c runs them all). The
 * barrier before the print is irrelevant to messages (FIB014). */
#include <mpi.h>
#include <stdio.h>

#define TAG_HELLO 99
#define TAG_DATA 100

int main(int argc, char **argv)
{
    int rank, size;
    int recv_list[8], send_list[8], n_recv = 0, n_send = 2;
    int token[8], hello, got[8], value[8];
    long local = 0, total = 0;
    MPI_Request req[8];
    MPI_Status st, sts[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* The neighbours this rank knows it needs data from. */
    recv_list[n_recv++] = (rank + size - 1) % size;
    recv_list[n_recv++] = (rank + 1) % size;

    /* Who needs data from this rank: learnt from the statuses. */
    for (int i = 0; i < n_send; i++)
        MPI_Irecv(&token[i], 1, MPI_INT, MPI_ANY_SOURCE, TAG_HELLO, MPI_COMM_WORLD, &req[i]);
    hello = rank;
    for (int i = 0; i < n_recv; i++)
        MPI_Send(&hello, 1, MPI_INT, recv_list[i], TAG_HELLO, MPI_COMM_WORLD);
    for (int i = 0; i < n_send; i++) {
        MPI_Wait(&req[i], &st);
        send_list[i] = st.MPI_SOURCE;
    }

    /* Add the senders not yet in the list. */
    for (int j = 0; j < n_send; j++) {
        int found = 0;
        for (int i = 0; i < n_recv; i++)
            if (recv_list[i] == send_list[j])
                found = 1;
        if (!found)
            recv_list[n_recv++] = send_list[j];
    }

    /* One value each way with every rank of the list, named. */
    for (int i = 0; i < n_recv; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, recv_list[i], TAG_DATA, MPI_COMM_WORLD, &req[i]);
    for (int i = 0; i < n_recv; i++) {
        value[i] = 100 * rank + recv_list[i];
        MPI_Send(&value[i], 1, MPI_INT, recv_list[i], TAG_DATA, MPI_COMM_WORLD);
    }
    MPI_Waitall(n_recv, req, sts);
    for (int i = 0; i < n_recv; i++)
        local += got[i];

    MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: %d neighbours, total %ld\n", rank, n_recv, total);
    MPI_Finalize();
    return 0;
}
