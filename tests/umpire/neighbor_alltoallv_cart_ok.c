/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* Three ranks on a periodic Cartesian ring exchange halos with
 * MPI_Neighbor_alltoallv and its nonblocking form: each sends one int down
 * (to its source) and two up (to its destination), and receives two from
 * its source and one from its destination, as the directions pair them.
 * An MPI_Neighbor_allgather of one int. Nothing is reported. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, dims[1] = {3}, periods[1] = {1};
    int out[4] = {0, 1, 2, 3}, in[4];
    int scounts[2] = {1, 2}, sdispls[2] = {0, 1};
    int rcounts[2] = {2, 1}, rdispls[2] = {0, 2};
    MPI_Comm ring;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT,
                           ring);
    MPI_Ineighbor_alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT,
                            ring, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, ring);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
