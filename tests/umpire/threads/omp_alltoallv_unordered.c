/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:25 */
/* Under MPI_THREAD_FUNNELED each OpenMP thread fills its block of the send
 * buffer, and the main thread exchanges the blocks at once in `omp
 * master`, whose end has no barrier: thread 1's stores are not ordered
 * with the MPI_Alltoallv that reads them. The twin
 * omp_alltoallv_barrier_ok.c has the barrier. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    int out[8], in[8], counts[2] = {4, 4}, displs[2] = {0, 4};
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
        MPI_Abort(MPI_COMM_WORLD, 1);
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        for (int i = 0; i < 4; i++)
            out[4 * me + i] = 10 * rank + me;
#pragma omp master
        MPI_Alltoallv(out, counts, displs, MPI_INT, in, counts, displs,
                      MPI_INT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return in[0] >= 0 ? 0 : 1;
}
