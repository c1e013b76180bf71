/* Streams large messages from rank 0 to rank 1, as bandwidth benchmarks do:
 * per iteration a window of WINDOW nonblocking sends of SIZE bytes against
 * as many receives, then a blocking send of SIZE bytes, then a
 * one-byte acknowledgement.
 * Arguments: iterations (default 20), size in bytes (default 1 MiB). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 16

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    int bytes = argc > 2 ? atoi(argv[2]) : 1 << 20;
    char *buf = malloc((size_t)bytes * WINDOW);
    memset(buf, rank, (size_t)bytes * WINDOW);
    MPI_Request reqs[WINDOW];
    MPI_Status stats[WINDOW];
    char ack = 0;
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(buf + (size_t)w * bytes, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(WINDOW, reqs, stats);
            MPI_Send(buf, bytes, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(buf + (size_t)w * bytes, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(WINDOW, reqs, stats);
            MPI_Recv(buf, bytes, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
    }
    t = MPI_Wtime() - t;
    if (rank == 0)
        printf("%.1f MB/s\n", (double)iters * (WINDOW + 1) * bytes / t / 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
