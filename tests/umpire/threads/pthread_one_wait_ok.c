/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of pthread_two_waits.c: the main thread starts the thread
 * after its own wait completed the request, so the thread's wait (on the
 * null request) comes after it. */
#include <mpi.h>
#include <pthread.h>

static MPI_Request req;
static volatile int done = 0;

static void *waiter(void *arg)
{
    (void)arg;
    while (!done)
        ;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, peer, in = -1, out;
    pthread_t t;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    out = rank;
    MPI_Irecv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    done = 1;
    pthread_create(&t, NULL, waiter, NULL);
    pthread_join(t, NULL);
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
