/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0's helper thread sends an int while the main thread, a moment
 * later, sends a double, waits at a barrier with the helper, and sends
 * another double; rank 1 receives each with its own datatype. The
 * helper's send reaches fib first but enters after the main thread's
 * first: each call's datatype must be the one its own thread gave,
 * whatever order the threads' calls reached fib in (the main thread's
 * second send has the same arguments as its first, and the helper's
 * entered between them). */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t both;

static void *helper(void *arg)
{
    int x = 7;
    (void)arg;
    MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    pthread_barrier_wait(&both);
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
        double d[2] = {1.0, 2.0};
        pthread_t t;
        pthread_barrier_init(&both, NULL, 2);
        pthread_create(&t, NULL, helper, NULL);
        usleep(200000);
        MPI_Send(&d[0], 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
        pthread_barrier_wait(&both);
        MPI_Send(&d[1], 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        int x;
        double d[2];
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&d[0], 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&d[1], 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
