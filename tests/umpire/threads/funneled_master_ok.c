/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of funneled_worker_calls.c: under MPI_THREAD_FUNNELED the
 * OpenMP threads compute, and only the main thread (`omp master`) calls
 * MPI, between two barriers of the team. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank;
    double part[64], sum = 0.0, total = 0.0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
    {
#pragma omp for reduction(+ : sum)
        for (int i = 0; i < 64; i++) {
            part[i] = i * (rank + 1);
            sum += part[i];
        }
#pragma omp master
        MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#pragma omp barrier
    }
    MPI_Finalize();
    return total > 0.0 ? 0 : 1;
}
