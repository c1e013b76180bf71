/* fib-test: nprocs=4 outcome=deadlock interleavings=1 codes=FIB001 */
/* Four ranks make a 2 x 2 periodic Cartesian grid. Ranks 0, 1 and 2 call
 * MPI_Allreduce on the grid; rank 3 first waits for a message from its
 * left neighbour (MPI_Cart_shift), which is rank 2, already inside the
 * MPI_Allreduce and never sending. The collective waits for rank 3, rank 3
 * waits for rank 2: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, dims[2] = {2, 2}, periods[2] = {1, 1}, left, right, v = 0, sum;
    MPI_Comm grid;
    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    if (rank == 3)
        MPI_Recv(&v, 1, MPI_INT, left, 0, grid, MPI_STATUS_IGNORE);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, grid);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
