/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Each rank shifts a value to the right around the ring with MPI_Sendrecv
 * (send to right, receive from left). No wildcard: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, in = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    assert(in == left);
    MPI_Finalize();
    return 0;
}
