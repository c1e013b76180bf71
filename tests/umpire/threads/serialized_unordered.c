/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB043 at=FIB043:28 */
/* MPI_THREAD_SERIALIZED: rank 0's helper thread sends while the main
 * thread sends too, and nothing orders the two calls (the join comes
 * after both). Reported whether or not they overlapped in the run. The
 * twin serialized_mutex_ok.c takes a mutex around each call. */
#include <mpi.h>
#include <pthread.h>

static int a = 1, b = 2;

static void *helper(void *arg)
{
    (void)arg;
    MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, helper, NULL);
        MPI_Send(&b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Request r[2];
        MPI_Irecv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
