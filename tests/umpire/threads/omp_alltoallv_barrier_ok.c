/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of omp_alltoallv_unordered.c: the team meets at a barrier
 * after filling the blocks, before the main thread exchanges them. */
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
#pragma omp barrier
#pragma omp master
        MPI_Alltoallv(out, counts, displs, MPI_INT, in, counts, displs,
                      MPI_INT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return in[4] == 10 + rank ? 0 : 1;
}
