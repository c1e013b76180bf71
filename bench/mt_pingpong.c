/* A thread-multiple ping-pong: two POSIX threads of each of two ranks
 * exchange messages at once under MPI_THREAD_MULTIPLE, each pair of
 * threads on its own tag, ROUNDS round trips each (the first argument).
 * fib enters every call of a rank of threads into the rank's sequence of
 * calls; with one tag per pair no order of entry changes a match, so the
 * check is one interleaving. */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>

#define THREADS 2

static int rank, rounds = 1000;

static void *pingpong(void *arg)
{
    int tag = *(int *)arg;
    double v[8] = {0};
    for (int i = 0; i < rounds; i++) {
        if (rank == 0) {
            MPI_Send(v, 8, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
            MPI_Recv(v, 8, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(v, 8, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v[0] += 1;
            MPI_Send(v, 8, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, tags[THREADS];
    pthread_t t[THREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1)
        rounds = atoi(argv[1]);
    for (int i = 0; i < THREADS; i++) {
        tags[i] = i;
        pthread_create(&t[i], NULL, pingpong, &tags[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    MPI_Finalize();
    return 0;
}
