/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB042 at=FIB042:23,FIB042:25 */
/* MPI_THREAD_FUNNELED, and the message goes inside `omp single`: whichever
 * thread of the team reaches the construct first makes the call, the main
 * one in some runs and a worker in others. Both calls are reported in
 * every run, whichever thread made them. The twin funneled_master_ok.c
 * makes the calls in `omp master`. */
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
#pragma omp single
        {
            if (rank == 0)
                MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            else if (rank == 1)
                MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
