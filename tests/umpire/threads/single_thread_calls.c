/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB042 at=FIB042:13 */
/* MPI_Init gives MPI_THREAD_SINGLE, yet rank 0 sends from a thread it
 * created (joined at once: the calls never overlap, the level is still
 * broken). */
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
    int rank;
    MPI_Init(&argc, &argv);
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
