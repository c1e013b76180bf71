/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB001 at=FIB001:16 */
/* The twin of pthread_two_peers_ok.c in which rank 2 never sends: the
 * thread of rank 0 that receives from rank 2 waits for ever, while its
 * sibling's receive completes. The deadlock names the thread that waits
 * (thread 2: the main thread is 0, the threads are numbered as they
 * start). */
#include <mpi.h>
#include <pthread.h>

static int got[2];

static void *receiver(void *arg)
{
    int peer = *(int *)arg;
    /* thread 2 waits here for ever */
    MPI_Recv(&got[peer - 1], 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
        pthread_t t[2];
        int peers[2] = {1, 2};
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, receiver, &peers[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
