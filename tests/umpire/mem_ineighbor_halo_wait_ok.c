/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* The twin of mem_ineighbor_halo_read.c: each rank reads the halo from
 * its lower neighbour after the wait (rank 0, which has none, writes its
 * own block while the exchange runs: MPI does not touch it). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, dims[1] = {3}, periods[1] = {0};
    int out[2], in[2] = {-1, -1}, lower = 0;
    MPI_Comm line;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    out[0] = out[1] = rank;
    MPI_Ineighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, line, &req);
    if (rank == 0)
        in[0] = 0;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    lower = in[0];
    MPI_Comm_free(&line);
    MPI_Finalize();
    return lower == (rank == 0 ? 0 : rank - 1) ? 0 : 1;
}
