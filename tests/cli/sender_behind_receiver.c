/* fib: -n 2 */
/* Rank 0's main thread waits in MPI_Recv for rank 1, which answers only
 * what rank 0's other thread sends it, a moment later (after some work
 * outside MPI). For an instant every rank waits in MPI, but the program
 * does not deadlock: the second thread is on its way. fib must wait for
 * it, and the two threads are inside MPI at once. */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static void *sender(void *arg)
{
    int x = 1;
    (void)arg;
    usleep(20000);
    MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, x = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, sender, NULL);
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
