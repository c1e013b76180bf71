/*
 * any_source_race.c: a deadlock that only some message orders reach.
 *
 * Run with 3 ranks: fib check examples/any_source_race.c -n 3
 * fib: -n 3
 *
 * Rank 0 collects work. It takes one "hello" (tag 0) from whichever worker
 * is first, then one "done" (tag 1) from any worker, and finally rank 2's
 * hello, asked for by name. Rank 1 sends a hello and a done; rank 2 sends
 * only a hello.
 *
 * The first receive is a wildcard, so MPI may give it either hello:
 *   - rank 1's hello: the last receive then gets rank 2's hello, and the
 *     program finishes;
 *   - rank 2's hello: nobody sends rank 0 another message from rank 2, so its
 *     last receive waits forever while rank 1's hello is never received.
 *
 * Which one happens on a real machine depends on timing, so a plain test
 * run may pass or hang. fib explores both orders (2 interleavings) and
 * reports the deadlock with the replay token of the second one.
 */
#include <mpi.h>
#include <stdio.h>

#define HELLO 0
#define DONE 1

int main(int argc, char **argv)
{
    int rank, size, value;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "run with 3 ranks\n");
        MPI_Finalize();
        return 1;
    }

    if (rank == 0) {
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, HELLO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&value, 1, MPI_INT, 2, HELLO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 0 received every message\n");
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, HELLO, MPI_COMM_WORLD);
        MPI_Send(&rank, 1, MPI_INT, 0, DONE, MPI_COMM_WORLD);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, HELLO, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
