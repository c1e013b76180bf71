/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of serialized_unordered.c: each thread of rank 0 sends with a
 * mutex held, so the two calls never run at once, whichever goes first. */
#include <mpi.h>
#include <pthread.h>

static int a = 1, b = 2;
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mpi_lock);
    MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    pthread_mutex_unlock(&mpi_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, helper, NULL);
        pthread_mutex_lock(&mpi_lock);
        MPI_Send(&b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        pthread_mutex_unlock(&mpi_lock);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Request r[2];
        MPI_Irecv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
