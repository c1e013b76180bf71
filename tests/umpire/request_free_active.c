/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=FIB029 at=FIB029:22,FIB029:29,FIB029:34 */
/* MPI_Request_free on active requests. Rank 0 frees the request of an
 * MPI_Isend at once (the handle becomes MPI_REQUEST_NULL) and learns from
 * rank 1's reply that it may go on; rank 1 frees its named MPI_Irecv, which
 * is still matched with rank 0's message. Rank 2 frees a wildcard
 * MPI_Irecv that ranks 0 and 1 both send to: either may be the one it
 * takes (two interleavings), and rank 2's blocking receive takes the
 * other. No request leaks (no FIB018: a freed request is never waited
 * for) and every message is received (no FIB020); but the three freed
 * requests' buffers may still be in use by MPI (FIB029 at each
 * MPI_Request_free; rank 0 learns of its send only from the reply). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, x = 5, y = 0, z[2] = {0, 0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        if (req != MPI_REQUEST_NULL)
            abort();
        MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 2, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Irecv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 2, 2, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(&z[0], 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Recv(&z[1], 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
