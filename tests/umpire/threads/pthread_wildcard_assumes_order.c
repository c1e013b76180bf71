/* fib-test: nprocs=3 outcome=crash interleavings=4 codes=FIB002 at=FIB002:18 */
/* MPI_THREAD_MULTIPLE with POSIX threads: two threads of rank 0 each
 * take one message with MPI_ANY_SOURCE, from ranks 1 and 2. Which
 * thread's receive enters MPI first, and which message each wildcard
 * receive takes, are choices: every thread can end with either value.
 * This program assumes the first thread gets rank 1's message: in the
 * runs where it gets rank 2's, its assert fails. The twin is
 * pthread_wildcard_ok.c. */
#include <assert.h>
#include <mpi.h>
#include <pthread.h>

static int got[2];

static void *receiver(void *arg)
{
    int i = *(int *)arg;
    MPI_Recv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    assert(i != 0 || got[i] == 1);
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
        int idx[2] = {0, 1};
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, receiver, &idx[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return rank == 0 && got[0] + got[1] != 3;
}
