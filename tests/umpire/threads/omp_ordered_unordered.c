/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:22 */
/* Iteration 0 (the main thread) receives in the loop's ordered section;
 * iteration 1 (OpenMP thread 1) reads the buffer before its own ordered
 * section, so nothing orders the read after the receive's completion. The
 * twin omp_ordered_ok.c reads it inside the ordered section. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out, in[4] = {0, 0, 0, 0};
    long seen = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    out = rank;
#pragma omp parallel for ordered schedule(static, 1) num_threads(2)
    for (int i = 0; i < 2; i++) {
        if (i == 1)
            seen = in[0];
#pragma omp ordered
        if (i == 0)
            MPI_Sendrecv(&out, 1, MPI_INT, peer, 0, in, 4, MPI_INT, peer, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return seen >= -1 ? 0 : 1;
}
