/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0's helper thread waits for an atomic flag before it stores into
 * the buffer of the main thread's MPI_Isend: the main thread sets the flag
 * with release order after its MPI_Wait, and the helper reads it with
 * acquire loads, so the store comes after the send completed. The twin of
 * pthread_flag_relaxed.c. */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

static double buf[8];
static atomic_int sent;

static void *helper(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&sent, memory_order_acquire))
        ;
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
        pthread_create(&t, NULL, helper, NULL);
        MPI_Isend(buf, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        atomic_store_explicit(&sent, 1, memory_order_release);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
