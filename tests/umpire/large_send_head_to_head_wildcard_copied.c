/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- copied=yes */
/* Ranks 0 and 1 send 1 MiB to each other before receiving, then each
 * tells rank 2, which takes both with wildcard receives. MPI holds a
 * message that large until its receive is posted: in a recorded run too,
 * the two senders say they are stuck and rank 2 that it waits, and fib
 * runs the interleaving again sending from copies. fib reports no FIB023:
 * a run with wildcard receives is not replayed without buffering (only
 * `--zero-buffer` finds the deadlock). */
#include <assert.h>
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
    int rank, got = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank < 2) {
        char *out = malloc(N), *in = malloc(N);
        for (int i = 0; i < N; i += 4096)
            out[i] = (char)(rank + 1);
        MPI_Send(out, N, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD);
        MPI_Recv(in, N, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i += 4096)
            assert(in[i] == (char)(2 - rank));
        MPI_Send(&rank, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        free(out);
        free(in);
    } else {
        for (int k = 0; k < 2; k++)
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
