/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 */
/* Both ranks receive before they send, while an OpenMP thread of each
 * spins outside MPI until the receive is done: the threads busy outside
 * MPI do not hide the deadlock, and the run leaves no process. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, x = 0;
    volatile int done = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Recv(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
            done = 1;
        } else {
            while (!done)
                ;
        }
    }
    MPI_Finalize();
    return 0;
}
