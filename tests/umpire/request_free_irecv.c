/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB029 at=FIB029:20 */
/* Rank 1 posts a receive, frees its request at once and reads the buffer
 * once a second message has come: nothing tells it that the first one has
 * been written into its buffer, so what it prints depends on timing
 * (FIB029 at MPI_Request_free, naming the MPI_Irecv). Rank 0's freed
 * MPI_Isend is FIB029 there too: nothing tells it when MPI has read x. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, x = 42, y = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    } else {
        MPI_Irecv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    }
    MPI_Request_free(&req);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("y = %d\n", y);
    }
    MPI_Finalize();
    return 0;
}
