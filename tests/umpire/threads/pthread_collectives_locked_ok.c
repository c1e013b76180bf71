/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014 */
/* The twin of pthread_two_collectives.c: the main thread holds a mutex
 * while it calls MPI_Barrier, and the thread takes it once the flag says
 * the barrier returned, so its MPI_Bcast comes after the barrier on every
 * rank. */
#include <mpi.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int done = 0;

static void *caster(void *arg)
{
    int x = 0;
    (void)arg;
    while (!done)
        ;
    pthread_mutex_lock(&lock);
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t t;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    pthread_create(&t, NULL, caster, NULL);
    pthread_mutex_lock(&lock);
    MPI_Barrier(MPI_COMM_WORLD);
    done = 1;
    pthread_mutex_unlock(&lock);
    pthread_join(t, NULL);
    MPI_Finalize();
    return 0;
}
