/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* MPI_THREAD_MULTIPLE with POSIX threads: two threads of rank 0 each
 * receive from their own peer, both waiting inside MPI at once. Which
 * thread's receive enters MPI first changes nothing (they name different
 * sources), so one run covers the program. The twin
 * pthread_two_peers_deadlock.c has a peer that never sends. */
#include <mpi.h>
#include <pthread.h>

static int got[2];

static void *receiver(void *arg)
{
    int peer = *(int *)arg;
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
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return rank == 0 && (got[0] != 1 || got[1] != 2);
}
