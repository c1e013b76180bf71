/* fib-choices: nprocs=3 outcome=ok interleavings=2 exhaustive=2 steering=47,53,55 */
/*
 * barrier L64: irrelevant
 *
 * A near-miss of the frame writer: rank 0 takes one message from each
 * other rank with MPI_Recv(MPI_ANY_SOURCE) and writes, in the record the
 * status's source picks, when that message came (fseek, fprintf). So far
 * one run could stand for both orders; but the program then reads the
 * file back (fscanf) and sends its "you came first" token to the rank
 * whose record says 0: a send's destination is made from what the row
 * wrote, and both orders run, with and without --exhaustive.
 *
 * The barrier at the end orders nothing: every message has been taken
 * before it.
 */
#include <mpi.h>
#include <stdio.h>

#define WIDTH 8

enum { TAG_HELLO = 1, TAG_FIRST = 2, TAG_LATER = 3 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        FILE *f = fopen("near_file_readback.dat", "w+");
        if (f == NULL) {
            perror("near_file_readback.dat");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int k = 0; k < size - 1; k++) {
            int hello;
            MPI_Status st;
            MPI_Recv(&hello, 1, MPI_INT, MPI_ANY_SOURCE, TAG_HELLO, MPI_COMM_WORLD, &st);
            fseek(f, (long)st.MPI_SOURCE * WIDTH, SEEK_SET);
            fprintf(f, "%7d\n", k);
        }
        int first = 1;
        for (int r = 1; r < size; r++) {
            int when = -1;
            fseek(f, (long)r * WIDTH, SEEK_SET);
            if (fscanf(f, "%d", &when) == 1 && when == 0)
                first = r;
        }
        fclose(f);
        remove("near_file_readback.dat");
        for (int r = 1; r < size; r++)
            if (r != first)
                MPI_Send(&r, 1, MPI_INT, r, TAG_LATER, MPI_COMM_WORLD);
        MPI_Send(&first, 1, MPI_INT, first, TAG_FIRST, MPI_COMM_WORLD);
    } else {
        int token;
        MPI_Status st;
        MPI_Send(&rank, 1, MPI_INT, 0, TAG_HELLO, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_FIRST)
            printf("near_file_readback: rank %d came first\n", rank);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* at the end */
    MPI_Finalize();
    return 0;
}
