/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 at=FIB034:33 */
/* Under MPI_THREAD_FUNNELED the main thread completes the receive inside
 * the parallel region, and OpenMP thread 1 reads the buffer once a plain
 * flag says so: the flag orders nothing for MPI (no barrier, lock or
 * atomic), so in another execution the read runs while MPI still writes
 * the buffer. Reported though in this run the read came after the wait.
 * The twin omp_recv_buffer_barrier_ok.c puts a barrier between them. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out, in[4] = {0, 0, 0, 0};
    volatile int ready = 0;
    long sum = 0;
    MPI_Request req;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    out = rank;
    MPI_Irecv(in, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
#pragma omp parallel num_threads(2) reduction(+ : sum)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            ready = 1;
        } else {
            while (!ready)
                ;
            sum += in[0];
        }
    }
    MPI_Finalize();
    return sum == peer ? 0 : 1;
}
