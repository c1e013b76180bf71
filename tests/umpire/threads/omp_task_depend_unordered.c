/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:27 */
/* Task A (depend out on the send buffer) fills it on OpenMP thread 1 (the
 * master spins until it started); task B, run by the master at once
 * (if(0)), sends it, but its clause names the receive buffer: nothing
 * orders A's stores before B's MPI_Sendrecv. The twin
 * omp_task_depend_ok.c names the send buffer. */
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
#pragma omp task depend(out : out)
            {
                started = 1;
                for (int i = 0; i < 64; i++)
                    out[i] = rank + i;
            }
            while (!started)
                ;
#pragma omp task depend(in : in) if (0)
            MPI_Sendrecv(out, 64, MPI_INT, peer, 0, in, 64, MPI_INT, peer, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return in[5] == peer + 5 ? 0 : 1;
}
