/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB034 at=FIB034:27 */
/* Three ranks on a non-periodic Cartesian line exchange halos with
 * MPI_Ineighbor_alltoall and read the halo from the lower neighbour before
 * the wait: MPI writes it until then (FIB034 on ranks 1 and 2). Rank 0's
 * lower neighbour is MPI_PROC_NULL: MPI does not touch that block, and
 * reading it is no finding (nor is rank 2's upper block, which it never
 * reads). The twin mem_ineighbor_halo_wait_ok.c reads after the wait. */
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
    if (rank == 0) {
        /* No lower neighbour: its block is the program's. */
        in[0] = 0;
        lower = in[0];
    } else {
        /* The block MPI is still writing. */
        lower = in[0];
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&line);
    MPI_Finalize();
    return lower >= -1 ? 0 : 1;
}
