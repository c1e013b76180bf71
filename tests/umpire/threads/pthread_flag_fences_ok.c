/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* pthread_flag_acquire_ok.c with fences: the main thread issues a
 * release fence after its MPI_Wait and sets the flag with a relaxed
 * store; the helper reads it with relaxed loads and then issues an
 * acquire fence. The fences order the helper's store into the buffer
 * after the send completed, as the release store and acquire loads do. */
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
    atomic_thread_fence(memory_order_acquire);
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
        atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&sent, 1, memory_order_relaxed);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
