/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB045 at=FIB045:36 */
/* MPI_THREAD_MULTIPLE with POSIX threads: the main thread completes the
 * request, and a thread it started before waits on the same request once
 * a plain flag says so (finding MPI_REQUEST_NULL in this run). The flag
 * orders nothing, so in another execution both wait on the live request
 * at once. The twin pthread_one_wait_ok.c starts the thread after the
 * main thread's wait. */
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
    pthread_create(&t, NULL, waiter, NULL);
    MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    done = 1;
    pthread_join(t, NULL);
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
