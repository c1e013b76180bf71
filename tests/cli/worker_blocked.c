/* fib: -n 2 */
/* Rank 0's second thread waits in MPI_Recv for a message rank 1 never
 * sends, while its main thread waits to join it: a deadlock whose
 * finding names the thread that waits in MPI. */
#include <mpi.h>
#include <pthread.h>

static void *receiver(void *arg)
{
    int x = 0;
    (void)arg;
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, receiver, NULL);
        pthread_join(t, NULL);
    }
    MPI_Finalize();
    return 0;
}
