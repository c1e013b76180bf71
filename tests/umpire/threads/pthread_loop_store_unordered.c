/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:24 */
/* Rank 0's helper thread stores into buf[0] before each of 20 sends, the
 * first time under a lock that the main thread takes later, once a
 * relaxed flag (which orders nothing) says the helper is done. The lock
 * orders the first store before the main thread's MPI_Isend of buf, not
 * the 19 after it: FIB034 at the store. fib keeps one entry for a store
 * a thread repeats between its MPI calls, the latest, which is the one
 * the lock does not order. The twin pthread_loop_store_locked_ok.c takes
 * the lock after the loop too. */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

static double buf[8];
static atomic_int done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *helper(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20; i++) {
        if (i == 0)
            pthread_mutex_lock(&lock);
        buf[0] = i;
        MPI_Send(&i, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        if (i == 0)
            pthread_mutex_unlock(&lock);
    }
    atomic_store_explicit(&done, 1, memory_order_relaxed);
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
        MPI_Request req;
        pthread_t t;
        pthread_create(&t, NULL, helper, NULL);
        while (!atomic_load_explicit(&done, memory_order_relaxed))
            ;
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
        MPI_Isend(buf, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        int x;
        for (int i = 0; i < 20; i++)
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
