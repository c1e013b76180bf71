/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB023 */
/* 20 000 round trips of a ping-pong (80 000 calls, which fib reruns without
 * buffering as they arrive, in several batches), then both ranks MPI_Send
 * to each other before they MPI_Recv. Buffered, the run completes; without
 * buffering the last exchange deadlocks, so fib warns (FIB023), as for
 * head_to_head_send.c. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 0, in = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    for (int i = 0; i < 20000; i++) {
        if (rank == 0) {
            MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v++;
            MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
    }
    assert(rank == 1 || v == 20000);
    MPI_Send(&rank, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    assert(in == other);
    MPI_Finalize();
    return 0;
}
