/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of omp_recv_buffer_unordered.c: an OpenMP barrier orders the
 * main thread's wait before thread 1 reads the buffer. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, out, in[4] = {0, 0, 0, 0};
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
        if (omp_get_thread_num() == 0)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
#pragma omp barrier
        if (omp_get_thread_num() == 1)
            sum += in[0];
    }
    MPI_Finalize();
    return sum == peer ? 0 : 1;
}
