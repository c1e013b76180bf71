/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The master receives, then creates a task that reads the buffer, which
 * OpenMP thread 1 runs (the master spins until it is done): the task
 * starts after everything its creator did before creating it, the
 * receive's completion included. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out, in[4] = {0, 0, 0, 0};
    volatile int done = 0, seen = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    out = rank;
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        {
            MPI_Sendrecv(&out, 1, MPI_INT, peer, 0, in, 4, MPI_INT, peer, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp task
            {
                seen = in[0];
                done = 1;
            }
            while (!done)
                ;
        }
    }
    MPI_Finalize();
    return seen == peer ? 0 : 1;
}
