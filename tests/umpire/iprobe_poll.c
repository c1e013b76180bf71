/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=- */
/* Rank 0 polls with MPI_Iprobe for a message from rank 1 with tag 3, then
 * receives it with the size reported by MPI_Get_count. The probe names its
 * source, so it is not a choice, and the poll must terminate: 1 interleaving,
 * ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, count = 0, buf[5] = {0};
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        while (!flag)
            MPI_Iprobe(1, 3, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        assert(count == 5);
        MPI_Recv(buf, count, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        assert(buf[4] == 4);
    } else {
        for (int i = 0; i < 5; i++)
            buf[i] = i;
        MPI_Send(buf, 5, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
