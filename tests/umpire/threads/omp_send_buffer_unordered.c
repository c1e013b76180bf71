/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:24 */
/* Under MPI_THREAD_FUNNELED each OpenMP thread fills its slot of the send
 * buffer, and the main thread sends the buffer at once, with no barrier
 * between: thread 1's store is ordered neither before nor after the
 * MPI_Isend, so MPI may read the buffer while it is written. Reported
 * whether the store came before or after the call in the run. The twin
 * omp_send_buffer_barrier_ok.c waits at a barrier before sending. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out[2], in[2];
    MPI_Request send, recv;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Irecv(in, 2, MPI_INT, peer, 0, MPI_COMM_WORLD, &recv);
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        out[me] = 10 * rank + me;
#pragma omp master
        {
            MPI_Isend(out, 2, MPI_INT, peer, 0, MPI_COMM_WORLD, &send);
            MPI_Wait(&send, MPI_STATUS_IGNORE);
        }
    }
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return in[0] == 10 * peer ? 0 : 1;
}
