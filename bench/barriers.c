/*
 * barriers.c: a benchmark of fib's scheduler throughput on collectives.
 * Every rank calls MPI_Barrier argv[1] times (default 10000); meant for 4
 * ranks. Each barrier makes one intercepted call per rank.
 *
 * There are no wildcard receives, so fib explores a single interleaving.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long barriers = argc > 1 ? atol(argv[1]) : 10000;

    MPI_Init(&argc, &argv);
    for (long i = 0; i < barriers; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
