/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 reads the buffer of its pending MPI_Isend (allowed: MPI only
 * reads it too) and writes it only after the wait: no finding. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0, buf[4] = {1, 2, 3, 4};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 4; i++)
            sum += buf[i];
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        buf[2] = sum;
    } else {
        MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
