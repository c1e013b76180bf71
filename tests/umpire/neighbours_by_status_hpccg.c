/* fib-test: nprocs=4 outcome=ok interleavings=1 probes=2 codes=- */
/* Peers chosen by status, in the shape of a 1-D sparse matrix setup: the
 * ranks form a chain, and each needs elements from the ranks beside it,
 * listed in a sorted array of owners. An MPI_Allreduce tells each rank how
 * many ranks need its elements; it learns which from the statuses of a row
 * of MPI_Irecv(MPI_ANY_SOURCE) and adds the ones not yet in its list. A
 * while loop then walks the sorted owners in step with the list to find
 * how many elements each peer sends, and two named exchanges follow (the
 * lengths, then the element indices, counted by the lengths received). The
 * list is the same in every order, so one run stands for the 2 x 2 = 4
 * orders of the rows of ranks 1 and 2 (ranks 0 and 3 have one neighbour). */
#include <mpi.h>
#include <stdio.h>

#define MAXN 8

int main(int argc, char **argv)
{
    int rank, size, n_ext = 0, n_recv = 0, n_send, total_send;
    int owner[MAXN], ext_index[MAXN], recv_list[MAXN], send_list[MAXN];
    int tmp_nb[MAXN] = {0}, tmp_buf[MAXN], lengths[MAXN], send_len[MAXN];
    int to_send[4 * MAXN], hello = 0, checksum = 0, all;
    MPI_Request req[MAXN];
    MPI_Status st, sts[MAXN];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXN)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* External elements, sorted by owner: 2 from the rank below, 3 from
     * the rank above. */
    if (rank > 0)
        for (int k = 0; k < 2; k++) {
            owner[n_ext] = rank - 1;
            ext_index[n_ext++] = 10 * (rank - 1) + k;
        }
    if (rank < size - 1)
        for (int k = 0; k < 3; k++) {
            owner[n_ext] = rank + 1;
            ext_index[n_ext++] = 10 * (rank + 1) + k;
        }

    /* Count the owners; the sum over all ranks says how many ranks need
     * this rank's elements (mod size) and how many elements (div size). */
    for (int i = 0; i < n_ext; i++) {
        if (tmp_nb[owner[i]] == 0) {
            n_recv++;
            tmp_nb[owner[i]] = 1;
        }
        tmp_nb[owner[i]] += size;
    }
    MPI_Allreduce(tmp_nb, tmp_buf, size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    n_send = tmp_buf[rank] % size;
    total_send = (tmp_buf[rank] - n_send) / size;

    /* The owners, in the order their elements come. */
    int j = 0;
    recv_list[j++] = owner[0];
    for (int i = 1; i < n_ext; i++)
        if (owner[i - 1] != owner[i])
            recv_list[j++] = owner[i];

    /* Who needs elements from this rank: learnt from the statuses. */
    for (int i = 0; i < n_send; i++)
        MPI_Irecv(&tmp_buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &req[i]);
    for (int i = 0; i < n_recv; i++)
        MPI_Send(&hello, 1, MPI_INT, recv_list[i], 99, MPI_COMM_WORLD);
    for (int i = 0; i < n_send; i++) {
        MPI_Wait(&req[i], &st);
        send_list[i] = st.MPI_SOURCE;
    }
    for (int k = 0; k < n_send; k++) {
        int found = 0;
        for (int i = 0; i < n_recv; i++)
            if (recv_list[i] == send_list[k])
                found = 1;
        if (!found)
            recv_list[n_recv++] = send_list[k];
    }

    /* Each peer's count of elements, walking the owners with the list. */
    for (int i = 0; i < n_recv; i++)
        MPI_Irecv(&lengths[i], 1, MPI_INT, recv_list[i], 100, MPI_COMM_WORLD, &req[i]);
    j = 0;
    for (int i = 0; i < n_recv; i++) {
        int start = j, length;
        while (j < n_ext && owner[j] == recv_list[i])
            j++;
        length = j - start;
        MPI_Send(&length, 1, MPI_INT, recv_list[i], 100, MPI_COMM_WORLD);
    }
    MPI_Waitall(n_recv, req, sts);

    /* The indices each peer wants, counted by the lengths received. */
    int at = 0;
    for (int i = 0; i < n_recv; i++) {
        send_len[i] = lengths[i];
        MPI_Irecv(&to_send[at], send_len[i], MPI_INT, recv_list[i], 101, MPI_COMM_WORLD, &req[i]);
        at += send_len[i];
    }
    j = 0;
    for (int i = 0; i < n_recv; i++) {
        int start = j;
        while (j < n_ext && owner[j] == recv_list[i])
            j++;
        MPI_Send(&ext_index[start], j - start, MPI_INT, recv_list[i], 101, MPI_COMM_WORLD);
    }
    MPI_Waitall(n_recv, req, sts);
    for (int i = 0; i < at; i++)
        checksum += to_send[i];

    MPI_Allreduce(&checksum, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: %d peers, %d of %d elements to send, checksum %d\n", rank, n_recv, at,
           total_send, all);
    MPI_Finalize();
    return 0;
}
