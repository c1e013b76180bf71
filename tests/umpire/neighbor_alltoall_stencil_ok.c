/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Four ranks make a periodic ring with MPI_Cart_create and exchange halo
 * values with MPI_Neighbor_alltoall: each rank sends one value to its left
 * and one to its right neighbour and receives one from each. Every rank
 * calls the neighbourhood collective, which fib matches as a collective
 * over the whole ring; no wildcard: 1 interleaving, ok. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, dims[1] = {0}, periods[1] = {1}, left, right, step;
    int out[2], in[2] = {-1, -1};
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    for (step = 0; step < 3; step++) {
        out[0] = 100 * step + rank; /* to the left neighbour */
        out[1] = 100 * step + rank; /* to the right neighbour */
        MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring);
        if (in[0] != 100 * step + left || in[1] != 100 * step + right)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
