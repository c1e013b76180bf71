/*
 * calls.c: a benchmark of what each intercepted call costs a rank when
 * MPI's own work is small. Every rank posts a receive from itself, sends
 * to itself and waits, argv[1] times (default 1000000): three calls per
 * round, none of which waits for another rank, so the time per call is
 * the interposition's (and, in a recorded run, the recording's) rather
 * than the network's. No wildcard receive: one interleaving.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000000;
    int rank, out = 1, in = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < rounds; i++) {
        MPI_Irecv(&in, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &req);
        MPI_Send(&out, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return in == 1 ? 0 : 1;
}
