/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* A thread-multiple ping-pong: two POSIX threads of each rank exchange
 * messages at once, each pair of threads on its own tag. A thread's
 * messages cannot reach the other thread, so whichever order the threads'
 * calls enter MPI in, each receive takes the same message: one run. The
 * twin pthread_pingpong_same_tag.c shares one tag. */
#include <mpi.h>
#include <pthread.h>

#define THREADS 2
#define ROUNDS 4

static int rank, bad;

static void *pingpong(void *arg)
{
    int tag = *(int *)arg, v;
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) {
            v = tag * 100 + i;
            MPI_Send(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (v != tag * 100 + i + 1)
                bad = 1;
        } else {
            MPI_Recv(&v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v++;
            MPI_Send(&v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
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
    for (int i = 0; i < THREADS; i++) {
        tags[i] = i;
        pthread_create(&t[i], NULL, pingpong, &tags[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    MPI_Finalize();
    return bad;
}
