/* fib-barriers: nprocs=4 outcome=ok interleavings=1 */
/*
 * also: nprocs=6 interleavings=1
 * barrier L33: irrelevant
 *
 * Rank 0 takes one message from every other rank with a matched probe for
 * any source and the MPI_Mrecv of what it took, and adds them up. The
 * probes can take the messages in any of (size-1)! orders (120 at 6
 * ranks), and one run stands for all of them: the sum is only printed.
 * Rank 1's later message steers the program (it decides an abort), but
 * not what the row takes. The barrier after the row orders no message the
 * row could take: irrelevant.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, x, total = 0, limit = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Message msg;
            MPI_Mprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
            MPI_Mrecv(&x, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
            total += x;
        }
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("total %d\n", total);
        MPI_Send(&size, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&limit, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (limit > 100)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
