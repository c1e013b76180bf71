/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034,FIB045,FIB047 at=FIB047:36 */
/* MPI_THREAD_MULTIPLE with OpenMP: a persistent receive is started and
 * completed by thread 0, then started again by thread 1 once a plain
 * flag says so. The flag orders nothing: in another execution thread 1's
 * MPI_Start comes while thread 0's receive is still active (FIB047); so
 * do thread 1's wait and thread 0's on the request (FIB045), and the two
 * receives into one buffer (FIB034). The twin
 * omp_persistent_restarted_barrier_ok.c meets at a barrier instead. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int provided, rank, peer, in = -1, out;
    volatile int done = 0;
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
            done = 1;
        } else {
            while (!done)
                ;
            /* The second message. */
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
    MPI_Request_free(&req);
    MPI_Finalize();
    return in == peer ? 0 : 1;
}
