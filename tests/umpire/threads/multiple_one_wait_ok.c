/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of multiple_two_waits.c: thread 0 completes the request, and
 * the team meets at a barrier before thread 1 waits on the (now null)
 * request. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, in = -1, out;
    MPI_Request req;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    out = rank;
    MPI_Irecv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
#pragma omp barrier
        if (omp_get_thread_num() == 1)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
