/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* The root reads its own buffer during a pending MPI_Ibcast (MPI only
 * reads the root's buffer), the other rank reads it after the wait: no finding. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, buf[8] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        buf[3] = 5;
    MPI_Ibcast(buf, 8, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank == 0)
        x = buf[3];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 1)
        x = buf[3];
    MPI_Finalize();
    return x == 5 ? 0 : 1;
}
