/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The master fills the send buffer with a task loop of two tasks, one of
 * which OpenMP thread 1 runs (the master's task spins until thread 1 has
 * started one). The loop's implicit taskgroup orders every task's stores
 * before the MPI_Sendrecv after it. The twin omp_taskloop_nogroup.c has
 * no taskgroup and waits on a plain flag. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out[64], in[64];
    volatile int worker = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        {
#pragma omp taskloop num_tasks(2)
            for (int t = 0; t < 2; t++) {
                if (omp_get_thread_num() != 0)
                    worker = 1;
                else
                    while (!worker)
                        ;
                for (int i = 32 * t; i < 32 * t + 32; i++)
                    out[i] = rank + i;
            }
            MPI_Sendrecv(out, 64, MPI_INT, peer, 0, in, 64, MPI_INT, peer, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return in[5] == peer + 5 && in[40] == peer + 40 ? 0 : 1;
}
