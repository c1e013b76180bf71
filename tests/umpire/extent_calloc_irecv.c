/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB039 at=FIB039:17 */
/* Rank 1 posts a receive of 16 doubles into a calloc'd block of 12
 * (the count computed with the wrong constant). */
#include <mpi.h>
#include <stdlib.h>

#define N 16

int main(int argc, char **argv) {
    int rank;
    double data[N] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *buf = calloc(12, sizeof(double));
    if (rank == 1) {
        MPI_Irecv(buf, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        MPI_Send(data, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
