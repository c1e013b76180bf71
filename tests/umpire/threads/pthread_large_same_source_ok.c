/* fib-test: nprocs=2 outcome=ok interleavings=3 codes=- copied=yes */
/* MPI_THREAD_MULTIPLE with POSIX threads, shaped as osu_latency_mt: rank
 * 0 sends two large messages with one tag, each after the answer to the
 * previous one; two threads of rank 1 each receive one with that tag and
 * answer on another. Which thread gets which message is decided by the
 * order their receives enter MPI, and which answer rank 0 takes first by
 * the order the answers do. The messages are above MPI's eager limit:
 * rank 0's MPI_Send waits in MPI for its receive, which rank 1's threads
 * post only once fib has entered them, so the check sends from copies. */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>

#define SIZE 100000

static char *bufs[2];

static void *recv_thread(void *arg)
{
    int id = *(int *)arg;
    MPI_Recv(bufs[id], SIZE, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(bufs[id], SIZE, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, ids[2] = {0, 1};
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bufs[0] = calloc(SIZE, 1);
    bufs[1] = calloc(SIZE, 1);
    if (rank == 1) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, recv_thread, &ids[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else {
        for (int i = 0; i < 2; i++) {
            MPI_Send(bufs[0], SIZE, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(bufs[1], SIZE, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    free(bufs[0]);
    free(bufs[1]);
    MPI_Finalize();
    return 0;
}
