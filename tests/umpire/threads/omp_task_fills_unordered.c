/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:27 */
/* OpenMP thread 1 runs a task that fills the send buffer and then sets a
 * plain flag; the master sends once it sees the flag. Nothing OpenMP
 * knows orders the task's stores before the MPI_Sendrecv (no taskwait,
 * taskgroup or barrier), so in another execution MPI reads the buffer
 * while the task still writes it. The twin omp_task_fills_taskwait_ok.c
 * waits for the task. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out[64], in[64];
    volatile int done = 0;
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
                for (int i = 0; i < 64; i++)
                    out[i] = rank + i;
                done = 1;
            }
            while (!done)
                ;
            MPI_Sendrecv(out, 64, MPI_INT, peer, 0, in, 64, MPI_INT, peer, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return in[5] == peer + 5 ? 0 : 1;
}
