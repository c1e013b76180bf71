/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* A loop's ordered sections run in the loop's order: iteration 0 (the
 * main thread, schedule(static, 1)) receives, and iteration 1 (OpenMP
 * thread 1) reads the buffer in the next ordered section, after the
 * receive's completion. The twin omp_ordered_unordered.c reads it
 * outside the ordered section. */
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
#pragma omp ordered
        {
            if (i == 0)
                MPI_Sendrecv(&out, 1, MPI_INT, peer, 0, in, 4, MPI_INT, peer,
                             0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                seen = in[0];
        }
    }
    MPI_Finalize();
    return seen == peer ? 0 : 1;
}
