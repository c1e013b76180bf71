/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB031 at=FIB031:23 */
/* Three ranks on a periodic Cartesian ring exchange halos with
 * MPI_Neighbor_alltoallv: each sends one int down (to its source) and two
 * up (to its destination), and so receives two from its source and one
 * from its destination. Rank 1 counts one int from its source, which sends
 * it two: FIB031 at the MPI_Neighbor_alltoallv, rank 0 sending 2 MPI_INT
 * to rank 1 and rank 1 receiving 1 MPI_INT from rank 0. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, dims[1] = {3}, periods[1] = {1};
    int out[4] = {0, 1, 2, 3}, in[4];
    int scounts[2] = {1, 2}, sdispls[2] = {0, 1};
    int rcounts[2] = {2, 1}, rdispls[2] = {0, 2};
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    /* The bug: rank 1 expects one int from its source. */
    if (rank == 1) rcounts[0] = 1;


    MPI_Neighbor_alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT,
                           ring);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
