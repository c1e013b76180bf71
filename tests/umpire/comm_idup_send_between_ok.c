/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 starts an MPI_Comm_idup of MPI_COMM_WORLD and, before waiting for
 * it, sends rank 1 a message with MPI_Ssend; rank 1 receives that message
 * before it calls MPI_Comm_idup itself. MPI_Comm_idup is a nonblocking
 * collective, no fence: the synchronous send completes and no rank waits
 * for the other's idup before its wait. Once both waits return, the ranks
 * talk on the new communicator and free it. 1 interleaving, ok. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Comm dup;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        v = 42;
        MPI_Ssend(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 1, 1, dup);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 0, 1, dup, MPI_STATUS_IGNORE);
        if (v != 42)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
