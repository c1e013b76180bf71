/* fib-test: nprocs=3 outcome=ok interleavings=1 probes=1 codes=- copied=yes */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 1 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
/* Rank 0 takes a 1 MiB result from each other rank with MPI_ANY_SOURCE
 * receives. fib posts a wildcard receive only once it has chosen its
 * sender, and chooses only once every rank waits, so the senders cannot
 * wait in MPI for their receives: their sends go from fib's copies. Both
 * orders are explored, and each result arrives intact. */
#include <assert.h>
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = malloc(N);
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Recv(buf, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            for (int i = 0; i < N; i += 4096)
                assert(buf[i] == (char)st.MPI_SOURCE);
        }
    } else {
        for (int i = 0; i < N; i += 4096)
            buf[i] = (char)rank;
        MPI_Send(buf, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        for (int i = 0; i < N; i += 4096)
            buf[i] = 0;
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
