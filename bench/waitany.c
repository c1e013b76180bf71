/* Results taken as they complete: rank 0 posts one MPI_Irecv from
 * MPI_ANY_SOURCE per message and takes them with a row of MPI_Waitany,
 * adding up what arrived; every other rank sends its share of the N
 * messages (N is the first argument, default 4). Nothing the program does
 * next depends on the order, so one run stands for the N! orders of the
 * Waitany calls and for the ways the receives can match their sends
 * (--exhaustive runs them all). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 4, idx;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int *buf = malloc(n * sizeof *buf);
        MPI_Request *req = malloc(n * sizeof *req);
        long sum = 0;
        for (int i = 0; i < n; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < n; i++) {
            MPI_Waitany(n, req, &idx, MPI_STATUS_IGNORE);
            sum += buf[idx];
        }
        printf("sum %ld\n", sum);
        free(buf);
        free(req);
    } else {
        for (int i = rank - 1; i < n; i += size - 1)
            MPI_Send(&i, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
