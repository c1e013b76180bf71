/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of omp_persistent_restarted.c: the team meets at a barrier
 * between thread 0's completion of the persistent receive and thread 1's
 * new start of it. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, in = -1, out;
    MPI_Request req, sends[2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    out = rank;
    MPI_Recv_init(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    MPI_Isend(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &sends[0]);
    MPI_Isend(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &sends[1]);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
#pragma omp barrier
        if (omp_get_thread_num() == 1) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
    MPI_Request_free(&req);
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
