/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 1 sends 3 integers; rank 0 receives into a buffer of 10 and learns the
 * real length with MPI_Get_count. A receive count larger than the message is
 * legal; 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, count = -1, buf[10] = {0};
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(buf, 10, MPI_INT, 1, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        assert(count == 3 && buf[2] == 12);
    } else {
        int data[3] = {10, 11, 12};
        MPI_Send(data, 3, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
