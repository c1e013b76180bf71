/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB042 at=FIB042:19 */
/* Under MPI_THREAD_FUNNELED each OpenMP thread asks for its rank: a local
 * call, but still an MPI call from a thread that is not the main one. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, sum = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
#pragma omp parallel num_threads(2) reduction(+ : sum)
    {
        int rank;
        /* Thread 1's call is the error; thread 0 is the main thread. */
        if (omp_get_thread_num() == 1)
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        else
            rank = 0;
        sum += rank;
    }
    MPI_Finalize();
    return sum >= 0 ? 0 : 1;
}
