/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:31 */
/* A `nogroup` task loop of two tasks fills the send buffer, OpenMP thread
 * 1 running one of them; the master counts the tasks done with an atomic
 * (it orders nothing: no release) and sends. No taskgroup, taskwait or
 * barrier orders thread 1's stores before the MPI_Sendrecv. The twin
 * omp_taskloop_ok.c has the loop's taskgroup. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out[64], in[64];
    volatile int worker = 0, done = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        {
#pragma omp taskloop num_tasks(2) nogroup
            for (int t = 0; t < 2; t++) {
                if (omp_get_thread_num() != 0)
                    worker = 1;
                else
                    while (!worker)
                        ;
                for (int i = 32 * t; i < 32 * t + 32; i++)
                    out[i] = rank + i;
                __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
            }
            while (done < 2)
                ;
            MPI_Sendrecv(out, 64, MPI_INT, peer, 0, in, 64, MPI_INT, peer, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
