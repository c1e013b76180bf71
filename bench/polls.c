/*
 * polls.c: a benchmark of a rank that overlaps communication with work by
 * polling. Each of argv[1] rounds (default 2000), every rank posts a
 * receive from its left neighbour and a send to its right one, then does
 * a slice of work and tests both requests with MPI_Testall until they
 * have completed: how many tests fail is timing. No wildcard receive: one
 * interleaving.
 */
#include <mpi.h>
#include <stdlib.h>

static volatile double sink;

/* A slice of work between two tests. */
static void work(void)
{
    double x = 0;
    for (int i = 0; i < 2000; i++)
        x += i * 0.5;
    sink = x;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 2000;
    int rank, size, in[64], out[64] = {0};
    MPI_Request reqs[2];
    MPI_Status sts[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (long i = 0; i < rounds; i++) {
        int done = 0;
        out[0] = (int) i;
        MPI_Irecv(in, 64, MPI_INT, left, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(out, 64, MPI_INT, right, 0, MPI_COMM_WORLD, &reqs[1]);
        while (!done) {
            work();
            MPI_Testall(2, reqs, &done, sts);
        }
        if (in[0] != (int) i)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
