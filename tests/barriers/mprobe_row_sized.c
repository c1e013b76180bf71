/* fib-barriers: nprocs=4 outcome=ok interleavings=1 */
/*
 * also: nprocs=6 interleavings=1
 * barrier L43: irrelevant
 *
 * Rank 0 takes one message from every other rank with a matched probe for
 * any source, sizes a buffer from the probe's status and receives the
 * message into it with MPI_Mrecv: rank k sends k ints, so each message has
 * its own length, and each MPI_Mrecv is made for the message its probe
 * took, whichever that is. The probes can take the messages in any of
 * (size-1)! orders (120 at 6 ranks), and one run stands for all of them:
 * the sum is only printed. The barrier after the row orders no message
 * the row could take: irrelevant.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Message msg;
            MPI_Status st;
            MPI_Mprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &msg, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            int *buf = malloc(n * sizeof *buf);
            MPI_Mrecv(buf, n, MPI_INT, &msg, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                total += buf[i];
            free(buf);
        }
    } else {
        int data[64];
        for (int i = 0; i < rank; i++)
            data[i] = rank;
        MPI_Send(data, rank, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %d\n", total);
    MPI_Finalize();
    return 0;
}
