/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:23 */
/* Under MPI_THREAD_FUNNELED each OpenMP thread writes its partial sum, and
 * the main thread reduces the array at once in `omp master`, whose end has
 * no barrier: thread 1's store is not ordered with the MPI_Allreduce that
 * reads the buffer. The twin omp_allreduce_barrier_ok.c has the barrier. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank;
    double part[2] = {0.0, 0.0}, total[2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        double s = 0.0;
        for (int i = 0; i < 100; i++)
            s += (i + me) * (rank + 1);
        part[me] = s;
#pragma omp master
        MPI_Allreduce(part, total, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return total[0] > 0.0 ? 0 : 1;
}
