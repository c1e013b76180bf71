/* fib: -n 2 */
/* Rank 0 receives from two threads at once (MPI_THREAD_MULTIPLE): both
 * threads meet at a pthread barrier and then block in MPI_Recv together,
 * while rank 1 sends their two messages a moment later. fib enters the
 * two receives into rank 0's sequence of calls; they take different tags,
 * so one run covers the program (and the threads call MPI before the
 * program read `provided`). */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t both;

static void *receive(void *arg)
{
    int x, tag = *(int *)arg;
    pthread_barrier_wait(&both);
    MPI_Recv(&x, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t t[2];
        int tags[2] = {0, 1};
        pthread_barrier_init(&both, NULL, 2);
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, receive, &tags[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else if (rank == 1) {
        int x = 1;
        usleep(200000);
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
