/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB010 at=FIB010:33 */
/* The twin of pthread_computing_sender_ok.c whose computing threads send
 * with a tag the peers do not receive. fib waits for them (they may still
 * call after their long computation), and once they have sent and ended,
 * rank 0 waits in MPI_Recv and rank 1 polls with MPI_Test for ever: a
 * livelock, not an early deadlock while the threads still ran. */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static int peer;

static void *computer(void *arg)
{
    (void)arg;
    sleep(2);
    int x = 7;
    MPI_Send(&x, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
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
