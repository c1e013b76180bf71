/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB042 at=FIB042:22,FIB042:24 */
/* MPI_THREAD_FUNNELED, and the message goes in a section of `omp
 * sections`: the runtime hands each section to a thread of the team, the
 * main one in some runs and a worker in others. Both calls are reported
 * in every run, whichever thread made them. */
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, rank, v = 0;
    double x = 1.0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel sections num_threads(2)
    {
#pragma omp section
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp section
        for (int i = 0; i < 1000; i++)
            x = x * 0.5 + 1.0;
    }
    MPI_Finalize();
    return x > 0.0 ? 0 : 1;
}
