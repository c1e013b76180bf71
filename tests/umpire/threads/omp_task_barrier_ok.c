/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The master creates a task that fills the send buffer; OpenMP thread 1
 * runs it inside the team's barrier (the master spins until it started),
 * and every task of the team is complete when the barrier ends, so its
 * stores come before the master's MPI_Sendrecv after it. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out[64], in[64];
    volatile int started = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        {
#pragma omp task
            {
                started = 1;
                for (int i = 0; i < 64; i++)
                    out[i] = rank + i;
            }
            while (!started)
                ;
        }
#pragma omp barrier
#pragma omp master
        MPI_Sendrecv(out, 64, MPI_INT, peer, 0, in, 64, MPI_INT, peer, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return in[5] == peer + 5 ? 0 : 1;
}
