/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of pthread_send_buffer_store.c: rank 0's helper thread stores
 * into the send buffer only after the main thread's wait, which its
 * creation follows. */
#include <mpi.h>
#include <pthread.h>

static double buf[8];

static void *helper(void *arg)
{
    (void)arg;
    buf[3] = 1.0;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request req;
        pthread_t t;
        MPI_Isend(buf, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        pthread_create(&t, NULL, helper, NULL);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
