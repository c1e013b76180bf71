/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Rank 1 copies into the buffer of its pending MPI_Irecv with libc's
 * memcpy (seen through the link's --wrap): FIB034. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, buf[16] = {0}, src[16] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(buf, 16, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        memcpy(buf, src, (size_t)rank * 16 * sizeof(int));
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(src, 16, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
