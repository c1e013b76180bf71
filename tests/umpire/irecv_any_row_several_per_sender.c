/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Rank 0 posts six MPI_Irecv from MPI_ANY_SOURCE into its own slots and
 * waits for them with MPI_Waitall; ranks 1 and 2 send three messages
 * each, the last with MPI_Isend. The 6!/(3!3!) = 20 ways the two
 * senders' messages can fill the slots, each sender's in its order,
 * change nothing the program does: one run stands for them. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, slot[6] = {0}, v[3];
    MPI_Request reqs[6];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int n = 3 * (size - 1);
        for (int k = 0; k < n; k++)
            MPI_Irecv(&slot[k], 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &reqs[k]);
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        int sum = 0;
        for (int k = 0; k < n; k++)
            sum += slot[k];
        printf("sum %d\n", sum);
    } else {
        MPI_Request last;
        for (int m = 0; m < 3; m++)
            v[m] = 10 * rank + m;
        MPI_Send(&v[0], 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        MPI_Send(&v[1], 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        MPI_Isend(&v[2], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &last);
        MPI_Wait(&last, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
