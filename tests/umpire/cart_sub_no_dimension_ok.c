/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* MPI_Cart_sub keeping no dimension of a one-dimensional grid: the first
 * process gets a communicator of its own; MPICH gives every other process
 * MPI_COMM_NULL, Open MPI a communicator of its own too (MPICH's test
 * cartsuball accepts both). fib models what the library at hand does, so
 * the run goes on to MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv) {
    int size, rank, n = 0, dims[1], periods[1] = {0}, remain[1] = {0};
    MPI_Comm cart, sub;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, remain, &sub);
    MPI_Comm_rank(cart, &rank);
    if (sub != MPI_COMM_NULL) {
        MPI_Comm_size(sub, &n);
        if (n != 1)
            MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_Comm_free(&sub);
    } else if (rank == 0) {
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
