/* fib-choices: nprocs=3 outcome=ok interleavings=2 exhaustive=2 steering=35 */
/*
 * barrier L43: irrelevant
 *
 * A near-miss: rank 0 takes one request from each other rank with a row
 * of MPI_Recv(MPI_ANY_SOURCE) and answers in the order they came: the
 * status of the row's k-th receive is the destination of the k-th reply,
 * whose tag says "you came k-th". Which rank gets which tag depends on
 * the order, so both orders run, with and without --exhaustive.
 *
 * The barrier after the replies orders nothing: every message of the
 * program has been taken before it.
 */
#include <mpi.h>
#include <stdio.h>

enum { TAG_REQUEST = 1, TAG_PLACE = 10 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        int came[8];
        for (int k = 0; k < size - 1; k++) {
            int request;
            MPI_Status st;
            MPI_Recv(&request, 1, MPI_INT, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &st);
            came[k] = st.MPI_SOURCE;
        }
        for (int k = 0; k < size - 1; k++)
            MPI_Send(&k, 1, MPI_INT, came[k], TAG_PLACE + k, MPI_COMM_WORLD);
    } else {
        int place;
        MPI_Status st;
        MPI_Send(&rank, 1, MPI_INT, 0, TAG_REQUEST, MPI_COMM_WORLD);
        MPI_Recv(&place, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        printf("near_reply_first: rank %d came %d-th (tag %d)\n", rank, place + 1, st.MPI_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* after the replies */
    MPI_Finalize();
    return 0;
}
