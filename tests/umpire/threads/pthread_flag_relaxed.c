/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:18 */
/* The twin of pthread_flag_acquire_ok.c with relaxed atomics: the flag
 * says the send completed, but a relaxed store and relaxed loads order
 * nothing, so the helper's store into the buffer is unordered with the
 * main thread's MPI_Isend and its completion (FIB034 at the store). */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

static double buf[8];
static atomic_int sent;

static void *helper(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&sent, memory_order_relaxed))
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
        atomic_store_explicit(&sent, 1, memory_order_relaxed);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
