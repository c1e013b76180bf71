/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB009 */
/* Three ranks make a periodic ring. Rank 0 calls MPI_Neighbor_allgather
 * and then MPI_Neighbor_alltoall; ranks 1 and 2 call them the other way
 * round. Neighbourhood collectives match in the communicator's collective
 * order like every other collective, so the first match set mixes two
 * operations: a collective mismatch (FIB009), 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, dims[1] = {0}, periods[1] = {1};
    int out[2] = {0, 0}, in[2];
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    if (rank == 0) {
        MPI_Neighbor_allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, ring);
        MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring);
    } else {
        MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring);
        MPI_Neighbor_allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, ring);
    }
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
