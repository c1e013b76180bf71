/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB046,FIB014 at=FIB046:31 */
/* MPI_THREAD_MULTIPLE with POSIX threads: on each rank the main thread
 * calls MPI_Barrier and a thread it started calls MPI_Bcast on the same
 * communicator once a plain flag says the barrier returned. Nothing
 * orders the two for MPI, so in another execution one rank's broadcast
 * meets the other's barrier. The twin pthread_collectives_locked_ok.c
 * orders them with a mutex. */
#include <mpi.h>
#include <pthread.h>

static volatile int done = 0;

static void *caster(void *arg)
{
    int x = 0;
    (void)arg;
    while (!done)
        ;
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
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
    MPI_Barrier(MPI_COMM_WORLD);
    done = 1;
    pthread_join(t, NULL);
    MPI_Finalize();
    return 0;
}
