/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* MPI_THREAD_MULTIPLE with POSIX threads: one thread of rank 0 waits in
 * MPI_Recv for rank 1's answer while another thread sends rank 1 the
 * message it answers. The receive can complete only because the send is
 * made while it waits: the two threads are inside MPI at once. */
#include <mpi.h>
#include <pthread.h>

static int in = -1, out = 42;

static void *receiver(void *arg)
{
    (void)arg;
    MPI_Recv(&in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

static void *sender(void *arg)
{
    (void)arg;
    MPI_Send(&out, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
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
        pthread_t a, b;
        pthread_create(&a, NULL, receiver, NULL);
        pthread_create(&b, NULL, sender, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    } else {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return rank == 0 && in != 42;
}
