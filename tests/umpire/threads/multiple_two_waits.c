/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB045 at=FIB045:32 */
/* MPI_THREAD_MULTIPLE: both OpenMP threads of each rank wait on the same
 * request. Thread 0's wait completes it; thread 1 waits once a plain flag
 * says so, and finds MPI_REQUEST_NULL, but the flag orders nothing: in
 * another execution both threads wait on the live request at once. The
 * twin multiple_one_wait_ok.c lets one thread wait and the team meet at a
 * barrier before the other looks at the request. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, in = -1, out;
    volatile int done = 0;
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
        if (omp_get_thread_num() == 0) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            done = 1;
        } else {
            while (!done)
                ;
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
