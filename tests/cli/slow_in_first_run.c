/* A rank whose threads are inside MPI at once; its second thread
 * computes for two seconds in the first run only (the file named by the
 * first argument marks that the first run happened), longer than fib waits
 * for a thread's next call. The first run takes that thread as idle and
 * lets the main thread's calls enter; the runs that replay its choices
 * must idle it at the same place though it is quick this time, and hold
 * its send back until where it came in the first run, or they meet other
 * choice points than the first run's (a divergence). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>

static const char *marker;

static void *late(void *arg)
{
    (void)arg;
    /* Computes for two seconds in the first run only. */
    int fd = open(marker, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd >= 0) {
        close(fd);
        sleep(2);
    }
    int x = 2;
    MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, x = 0, y = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        marker = argc > 1 ? argv[1] : "slow_in_first_run.marker";
        pthread_t t;
        pthread_create(&t, NULL, late, NULL);
        MPI_Status st;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        x = 1;
        MPI_Send(&x, 1, MPI_INT, 1, st.MPI_SOURCE, MPI_COMM_WORLD);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
