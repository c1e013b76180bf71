/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 reads its MPI_Irecv's buffer only after the wait, and works on
 * another array meanwhile: no finding. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0, buf[64] = {0}, other[64] = {0};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(buf, 64, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 64; i++)
            other[i] = i;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < 64; i++)
            sum += buf[i] + other[i];
    } else {
        MPI_Send(buf, 64, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return sum == 2016 || rank == 0 ? 0 : 1;
}
