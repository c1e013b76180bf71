/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB014 */
/* The twin of multiple_two_collectives.c: a barrier of the team orders
 * thread 0's MPI_Barrier before thread 1's MPI_Bcast on every rank. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, x = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            MPI_Barrier(MPI_COMM_WORLD);
#pragma omp barrier
        if (omp_get_thread_num() == 1)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
