/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB018 */
/* Persistent requests started and completed, but never freed with
 * MPI_Request_free: each is a leaked request (FIB018, at the
 * MPI_Send_init and the MPI_Recv_init that made them), though every
 * message is received. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 3;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send_init(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    else
        MPI_Recv_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
