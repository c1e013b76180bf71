/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:15 */
/* Rank 0's helper thread stores into the buffer of the main thread's
 * pending MPI_Isend: the helper starts after the send and is joined
 * before the wait, so the store always falls while MPI owns the buffer.
 * The twin pthread_send_buffer_after_wait_ok.c starts the helper after
 * the wait. */
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
        pthread_create(&t, NULL, helper, NULL);
        pthread_join(t, NULL);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
