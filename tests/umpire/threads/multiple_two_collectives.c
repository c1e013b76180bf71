/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB046,FIB014 at=FIB046:27 */
/* MPI_THREAD_MULTIPLE: on each rank OpenMP thread 0 calls MPI_Barrier and
 * thread 1 then MPI_Bcast on the same communicator, after a plain flag:
 * in this run every rank calls them in the same order, but nothing orders
 * them for MPI, so in another execution one rank's broadcast meets the
 * other's barrier. The twin multiple_collectives_ordered_ok.c orders them
 * with a barrier of the team. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, x = 0;
    volatile int done = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            done = 1;
        } else {
            while (!done)
                ;
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
