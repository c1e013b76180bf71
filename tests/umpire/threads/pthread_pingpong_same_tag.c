/* fib-test: nprocs=2 outcome=crash interleavings=4 codes=FIB002 at=FIB002:22 */
/* The twin of pthread_pingpong_ok.c with one tag for both threads: rank
 * 1's threads each receive from rank 0 with that tag, so which thread
 * takes which of rank 0's messages is decided by the order their
 * receives enter MPI (receives of different threads that can take the
 * same message are a choice, like a wildcard receive). In one order the
 * answer goes back to the thread that did not ask, and rank 0 sees it. */
#include <assert.h>
#include <mpi.h>
#include <pthread.h>

#define THREADS 2

static int rank;

static void *pingpong(void *arg)
{
    int id = *(int *)arg, v;
    if (rank == 0) {
        v = id;
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, id, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(v == id);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* answers on the tag of the thread it thinks it serves */
        MPI_Send(&v, 1, MPI_INT, 0, id, MPI_COMM_WORLD);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, ids[THREADS];
    pthread_t t[THREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < THREADS; i++) {
        ids[i] = i;
        pthread_create(&t[i], NULL, pingpong, &ids[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    MPI_Finalize();
    return 0;
}
