/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- copied=no */
/* Rank 0 streams 1 MiB messages to rank 1, which has posted its receives:
 * a window of nonblocking sends, then blocking sends that reuse one buffer
 * as soon as each returns. fib sends them from the program's buffer (no
 * interleaving needs MPI to hold one before its receive is posted), and
 * every message arrives as it was when sent. */
#include <assert.h>
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)
#define WINDOW 4

int main(int argc, char **argv)
{
    int rank;
    MPI_Request reqs[WINDOW];
    MPI_Status stats[WINDOW];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = malloc((size_t)N * WINDOW);
    if (rank == 0) {
        for (int w = 0; w < WINDOW; w++) {
            for (int i = 0; i < N; i += 4096)
                buf[(size_t)w * N + i] = (char)(w + 1);
            MPI_Isend(buf + (size_t)w * N, N, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &reqs[w]);
        }
        MPI_Waitall(WINDOW, reqs, stats);
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < N; i += 4096)
                buf[i] = (char)(10 + k);
            MPI_Send(buf, N, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        for (int w = 0; w < WINDOW; w++)
            MPI_Irecv(buf + (size_t)w * N, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &reqs[w]);
        MPI_Waitall(WINDOW, reqs, stats);
        for (int w = 0; w < WINDOW; w++)
            for (int i = 0; i < N; i += 4096)
                assert(buf[(size_t)w * N + i] == (char)(w + 1));
        for (int k = 0; k < 3; k++) {
            MPI_Recv(buf, N, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i += 4096)
                assert(buf[i] == (char)(10 + k));
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
