/* fib: -n 2 */
/* Rank 0 starts two threads before MPI_Init_thread (MPI_THREAD_MULTIPLE);
 * once MPI runs, both receive at the same moment, while rank 1 sends
 * their two messages a moment later. fib is told of threads started
 * while MPI runs only: it must say that it does not model these two
 * inside MPI at once, not report a deadlock. */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t started;
static int rank;

static void *receive(void *arg)
{
    int x, tag = *(int *)arg;
    pthread_barrier_wait(&started);
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t t[2];
    int tags[2] = {0, 1};
    pthread_barrier_init(&started, NULL, 3);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, receive, &tags[i]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_barrier_wait(&started);
    if (rank == 1) {
        int x = 1;
        usleep(200000);
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    MPI_Finalize();
    return 0;
}
