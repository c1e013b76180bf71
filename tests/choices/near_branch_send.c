/* fib-choices: nprocs=4 outcome=ok interleavings=2 exhaustive=2 steering=33 */
/*
 * barrier L49: irrelevant
 *
 * A near-miss: rank 0 takes one value from ranks 1 and 2 with a row of
 * MPI_Recv(MPI_ANY_SOURCE), and when rank 1's value is the first to come
 * it tells rank 3 so at once (an MPI_Send under a condition on the
 * status); otherwise it tells rank 3 after the row, with another tag. The
 * status decides a branch with an MPI call, so both orders run, with and
 * without --exhaustive.
 *
 * The barrier at the end orders nothing: every message has been taken
 * before it.
 */
#include <mpi.h>
#include <stdio.h>

enum { TAG_VALUE = 1, TAG_ONE_FIRST = 2, TAG_TWO_FIRST = 3 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        int told = 0;
        for (int k = 0; k < 2; k++) {
            int value;
            MPI_Status st;
            MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, TAG_VALUE, MPI_COMM_WORLD, &st);
            if (k == 0 && st.MPI_SOURCE == 1) {
                MPI_Send(&value, 1, MPI_INT, 3, TAG_ONE_FIRST, MPI_COMM_WORLD);
                told = 1;
            }
        }
        if (!told)
            MPI_Send(&told, 1, MPI_INT, 3, TAG_TWO_FIRST, MPI_COMM_WORLD);
    } else if (rank == 1 || rank == 2) {
        int value = rank * 7;
        MPI_Send(&value, 1, MPI_INT, 0, TAG_VALUE, MPI_COMM_WORLD);
    } else if (rank == 3) {
        int news;
        MPI_Status st;
        MPI_Recv(&news, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        printf("near_branch_send: rank %d came first\n", st.MPI_TAG == TAG_ONE_FIRST ? 1 : 2);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* at the end */
    MPI_Finalize();
    return 0;
}
