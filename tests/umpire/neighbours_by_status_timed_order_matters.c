/* fib-test: nprocs=4 outcome=ok interleavings=16 probes=5 codes=FIB014 at=FIB014:73 */
/* neighbours_by_status_timed.c, but the value each rank sends its peers
 * names the neighbour whose token arrived first. The calls are the same in
 * every order; the data is not. A probe run differs from its run in the
 * data of the exchange and of the time's reduction; the twin (a run of the
 * run's own choices) differs only in the time's, so the exchange still
 * differs: leaving out what a clock decides leaves in what the order
 * decides. Each rank's row is tried once (4 probe runs and the twin), and
 * all 2^4 = 16 orders are run. */
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
    double start, elapsed, slowest;
    MPI_Request req[8];
    MPI_Status st, sts[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    start = MPI_Wtime();

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
        /* The first sender to arrive: the order decides it. */
        value[i] = 100 * send_list[0] + recv_list[i];
        MPI_Send(&value[i], 1, MPI_INT, recv_list[i], TAG_DATA, MPI_COMM_WORLD);
    }
    MPI_Waitall(n_recv, req, sts);
    for (int i = 0; i < n_recv; i++)
        local += got[i];

    /* A time: data no order decides, other in every run. */
    elapsed = MPI_Wtime() - start;
    MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: %d neighbours, total %ld, %.3f s\n", rank, n_recv, total, slowest);
    MPI_Finalize();
    return 0;
}
