/* fib: -n 2 */
/* Rank 0 calls MPI from a second thread, but never from two at once
 * (MPI_THREAD_SERIALIZED): the helper thread receives, the main thread
 * joins it and then sends. It checks the level it got first. */
#include <mpi.h>
#include <pthread.h>

static void *receive(void *arg)
{
    MPI_Recv(arg, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, x = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, receive, &x);
        pthread_join(t, NULL);
        MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
