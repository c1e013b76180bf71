/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB044 at=FIB044:13 */
/* Rank 0's helper thread calls MPI, joined before the main thread calls
 * again (serialised), but the program never reads the level
 * MPI_Init_thread provided. The twin provided_read_ok.c checks it. */
#include <mpi.h>
#include <pthread.h>

static int v = 7;

static void *helper(void *arg)
{
    (void)arg;
    MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, helper, NULL);
        pthread_join(t, NULL);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
