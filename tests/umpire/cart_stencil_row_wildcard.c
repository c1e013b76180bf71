/* fib-test: nprocs=4 outcome=ok interleavings=1 probes=1 codes=- */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 1 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
/* A 2D stencil step on a 2 x 2 Cartesian grid: MPI_Dims_create fills in
 * the columns, MPI_Cart_create makes the grid (not periodic, reordering
 * allowed), MPI_Cart_shift finds each rank's neighbours (MPI_PROC_NULL at
 * the edges), and MPI_Sendrecv exchanges halos along both dimensions, then
 * MPI_Allreduce sums a residual over the grid. MPI_Cart_sub splits the grid
 * into rows of 2 ranks; in row 1, the row's rank 0 (grid rank 2) receives
 * twice from MPI_ANY_SOURCE on the row communicator: from the other member
 * of the row and from itself, through a nonblocking send. The first
 * wildcard can take either message: 2 interleavings, both complete (the
 * receiver checks it heard from each row rank once). */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {2, 0}, periods[2] = {0, 0}, coords[2];
    int up, down, left, right, halo, me, total, ndims, topo;
    int remain[2] = {0, 1}, row_rank, row_size;
    MPI_Comm grid, row;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    assert(size == 4);
    MPI_Dims_create(size, 2, dims);
    assert(dims[0] == 2 && dims[1] == 2);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Topo_test(grid, &topo);
    assert(topo == MPI_CART);
    MPI_Cartdim_get(grid, &ndims);
    assert(ndims == 2);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);
    MPI_Cart_rank(grid, coords, &me);
    assert(me == rank);

    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    assert((coords[0] == 0) == (up == MPI_PROC_NULL));
    assert((coords[1] == 1) == (right == MPI_PROC_NULL));
    /* Send down, receive from above; send right, receive from the left. */
    halo = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, down, 0, &halo, 1, MPI_INT, up, 0, grid,
                 MPI_STATUS_IGNORE);
    assert(halo == (up == MPI_PROC_NULL ? -1 : up));
    halo = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &halo, 1, MPI_INT, left, 1, grid,
                 MPI_STATUS_IGNORE);
    assert(halo == (left == MPI_PROC_NULL ? -1 : left));
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, grid);
    assert(total == 6);

    MPI_Cart_sub(grid, remain, &row);
    MPI_Comm_rank(row, &row_rank);
    MPI_Comm_size(row, &row_size);
    assert(row_size == 2 && row_rank == coords[1]);
    if (coords[0] == 1) {
        if (row_rank == 0) {
            MPI_Request req;
            int got, seen = 0;
            MPI_Isend(&row_rank, 1, MPI_INT, 0, 7, row, &req);
            for (int i = 0; i < 2; i++) {
                MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, row,
                         MPI_STATUS_IGNORE);
                seen |= 1 << got;
            }
            assert(seen == 3);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(&row_rank, 1, MPI_INT, 0, 7, row);
        }
    }
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
