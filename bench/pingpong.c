/*
 * pingpong.c: a benchmark of fib's scheduler throughput on point-to-point
 * traffic. Two ranks bounce one int back and forth: rank 0 sends, rank 1
 * receives and sends it back, rank 0 receives. argv[1] is the number of
 * round trips (default 50000, that is 100 000 messages); each round trip
 * makes four intercepted calls (two sends, two receives).
 *
 * There are no wildcard receives, so fib explores a single interleaving.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    long rounds = argc > 1 ? atol(argv[1]) : 50000;
    int value = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    for (long i = 0; i < rounds; i++) {
        if (rank == 0) {
            MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            value++;
            MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }

    if (rank == 0 && value != rounds) {
        fprintf(stderr, "pingpong: expected %ld, got %d\n", rounds, value);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
