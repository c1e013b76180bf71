/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* MPI is initialised inside an OpenMP region, by its thread 0, while the
 * rank already has a second thread: the rank says hello to fib before
 * anything else, and the program checks as any other (its one MPI thread
 * calls MPI, the other thread waits at the region's barrier). */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, x = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
            if (provided >= MPI_THREAD_SERIALIZED) {
                MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                x = rank;
                MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                MPI_Finalize();
            }
        }
    }
    return x == 1 ? 0 : 1;
}
