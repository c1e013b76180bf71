/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of pthread_request_reused.c: the flag that lets the thread
 * reuse the request variable is written and read under a mutex, so the
 * main thread's wait, before its unlock, comes before the thread's
 * MPI_Irecv, after its lock. */
#include <mpi.h>
#include <pthread.h>

static MPI_Request req;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int done = 0;

static void *reuser(void *arg)
{
    int x, go = 0;
    MPI_Request mine;
    (void)arg;
    while (!go) {
        pthread_mutex_lock(&lock);
        go = done;
        pthread_mutex_unlock(&lock);
    }
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
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_mutex_unlock(&lock);
    pthread_join(t, NULL);
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
