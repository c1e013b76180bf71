/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Each rank posts an MPI_Irecv from its left neighbour and an MPI_Isend to its
 * right neighbour, then completes both with MPI_Waitall, and passes a value
 * around the ring twice. Every receive names its source: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, in = -1, out;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    out = rank;
    for (int round = 0; round < 2; round++) {
        MPI_Irecv(&in, 1, MPI_INT, left, round, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&out, 1, MPI_INT, right, round, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, sts);
        out = in;
    }
    assert(in == (rank + size - 2) % size);
    MPI_Finalize();
    return 0;
}
