/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* MPI_THREAD_MULTIPLE with POSIX threads: on each rank a second thread
 * computes for two seconds (longer than fib waits for a thread's next
 * call before letting its rank's other calls enter) and then sends to
 * the peer, while the main thread waits for the peer's message: in
 * MPI_Recv on rank 0, in a loop of MPI_Test on rank 1. Every rank waits
 * inside MPI while the computing threads run, but they still call: the
 * run is not stuck and the polls fail until the sends come. The twin
 * pthread_computing_sender_deadlock.c sends with the wrong tag. */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static int peer;

static void *computer(void *arg)
{
    (void)arg;
    sleep(2);
    int x = 7;
    MPI_Send(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, y = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    pthread_t t;
    pthread_create(&t, NULL, computer, NULL);
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Request req;
        int done = 0;
        MPI_Irecv(&y, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &req);
        while (!done)
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
    pthread_join(t, NULL);
    MPI_Finalize();
    return y == 7 ? 0 : 1;
}
