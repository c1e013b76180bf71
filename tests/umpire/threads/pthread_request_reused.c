/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB047 at=FIB047:22 */
/* MPI_THREAD_MULTIPLE with POSIX threads: the main thread completes its
 * receive's request, then a thread it started before puts a new request
 * in the same variable once a plain flag says so. The flag orders
 * nothing, so in another execution the thread's MPI_Irecv overwrites the
 * request while the main thread's receive is still active. The twin
 * pthread_request_reused_locked_ok.c passes the flag under a mutex. */
#include <mpi.h>
#include <pthread.h>

static MPI_Request req;
static volatile int done = 0;

static void *reuser(void *arg)
{
    int x;
    MPI_Request mine;
    (void)arg;
    while (!done)
        ;
    /* A receive from MPI_PROC_NULL completes at once, with no message. */
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    /* Completed through a copy of the thread's own. */
    mine = req;
    MPI_Wait(&mine, MPI_STATUS_IGNORE);
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
    pthread_create(&t, NULL, reuser, NULL);
    MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    done = 1;
    pthread_join(t, NULL);
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
