/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB029 at=FIB029:17 */
/* Rank 0 frees the request of an MPI_Isend still in progress and then
 * writes its buffer: MPI allows the free, but nothing tells the program
 * when MPI has read the buffer, so the message may carry 1 or 2 (FIB029,
 * a warning at MPI_Request_free, naming the MPI_Isend). Every message is
 * received and no request leaks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, x = 1, y = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        x = 2;
        MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("y = %d\n", y);
        MPI_Send(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
