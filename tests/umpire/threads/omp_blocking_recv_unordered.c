/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:25 */
/* Under MPI_THREAD_FUNNELED the main thread receives into a buffer with a
 * blocking MPI_Recv while OpenMP thread 1 stores into it, with no barrier
 * between: MPI writes the buffer during the call, which nothing orders
 * with the store. Reported wherever the store fell in the run. The twin
 * omp_blocking_recv_barrier_ok.c meets at a barrier first. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out[2] = {1, 2}, in[2];
    MPI_Request send;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Isend(out, 2, MPI_INT, peer, 0, MPI_COMM_WORLD, &send);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            MPI_Recv(in, 2, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            in[1] = -1;
    }
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
