/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of omp_allreduce_unordered.c: the team meets at a barrier after
 * writing the partial sums, before the main thread reduces them. */
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
#pragma omp barrier
#pragma omp master
        MPI_Allreduce(part, total, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return total[0] > 0.0 ? 0 : 1;
}
