/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The twin of request_free_active_isend.c: requests freed when nothing
 * is in progress. Rank 0 frees a persistent send never started, and one
 * it started twice and completed each time with MPI_Wait; rank 1 frees
 * its persistent receive after its last MPI_Wait. No buffer is in use at
 * any free: nothing to report. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, i, x = 4;
    MPI_Request req, unused;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &unused);
        MPI_Request_free(&unused);
        MPI_Send_init(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    } else {
        MPI_Recv_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    }
    for (i = 0; i < 2; i++) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    MPI_Finalize();
    return 0;
}
