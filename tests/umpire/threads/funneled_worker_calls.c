/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB042 at=FIB042:21,FIB042:23 */
/* MPI_THREAD_FUNNELED, but the message goes between OpenMP thread 1 of
 * rank 0 and OpenMP thread 1 of rank 1: neither is the thread that
 * initialised MPI. Both calls are reported, whatever the timing. The twin
 * funneled_master_ok.c makes the calls in `omp master`. */
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, rank, v = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            if (rank == 0)
                MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            else if (rank == 1)
                MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
