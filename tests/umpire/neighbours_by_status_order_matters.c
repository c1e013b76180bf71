/* fib-test: nprocs=4 outcome=ok interleavings=16 probes=4 codes=FIB014 at=FIB014:68 */
/* The near-miss of neighbours_by_status.c: each rank of a ring sends a
 * token to its two neighbours and learns who sends to it from the statuses
 * of a row of MPI_Irecv(MPI_ANY_SOURCE), but it has no list of its own to
 * merge them into: the list of peers is the sources in arrival order, and
 * the value a rank sends to its i-th peer is i. The set of peers is the
 * same in every order, the data each peer gets is not (and a reduction of
 * it reaches every rank), so each of the 2^4 = 16 orders of the four rows
 * is run. */
#include <mpi.h>
#include <stdio.h>

#define TAG_HELLO 99
#define TAG_DATA 100

int main(int argc, char **argv)
{
    int rank, size;
    int known[2], recv_list[8], send_list[8], n_recv = 0, n_send = 2;
    int token[8], hello, got[8], value[8];
    long local = 0, total = 0;
    MPI_Request req[8];
    MPI_Status st, sts[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* The neighbours this rank sends its token to. */
    known[0] = (rank + size - 1) % size;
    known[1] = (rank + 1) % size;

    /* Who sends to this rank: learnt from the statuses. */
    for (int i = 0; i < n_send; i++)
        MPI_Irecv(&token[i], 1, MPI_INT, MPI_ANY_SOURCE, TAG_HELLO, MPI_COMM_WORLD, &req[i]);
    hello = rank;
    for (int i = 0; i < 2; i++)
        MPI_Send(&hello, 1, MPI_INT, known[i], TAG_HELLO, MPI_COMM_WORLD);
    for (int i = 0; i < n_send; i++) {
        MPI_Wait(&req[i], &st);
        send_list[i] = st.MPI_SOURCE;
    }

    /* The list starts empty: it takes the senders in arrival order. */
    for (int j = 0; j < n_send; j++) {
        int found = 0;
        for (int i = 0; i < n_recv; i++)
            if (recv_list[i] == send_list[j])
                found = 1;
        if (!found)
            recv_list[n_recv++] = send_list[j];
    }

    /* One value each way with every rank of the list, named; the value
     * is the peer's place in the list, which the order decided. */
    for (int i = 0; i < n_recv; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, recv_list[i], TAG_DATA, MPI_COMM_WORLD, &req[i]);
    for (int i = 0; i < n_recv; i++) {
        value[i] = i;
        MPI_Send(&value[i], 1, MPI_INT, recv_list[i], TAG_DATA, MPI_COMM_WORLD);
    }
    MPI_Waitall(n_recv, req, sts);
    for (int i = 0; i < n_recv; i++)
        local += (long)got[i] * (recv_list[i] + 1);

    /* The order of every rank's row reaches this sum. */
    MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: %d neighbours, total %ld\n", rank, n_recv, total);
    MPI_Finalize();
    return 0;
}
