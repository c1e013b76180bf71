/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB034 */
/* Rank 1 posts a second MPI_Irecv whose buffer overlaps the first
 * one's, while the first is pending: FIB034 at the second receive. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0};
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(buf + 2, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        MPI_Send(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(buf, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
