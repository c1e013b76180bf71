/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=FIB019 */
/* Every iteration splits the world into halves, reduces over the half and
 * never frees the new communicator: three leaked communicators per rank, one
 * FIB019 finding at the MPI_Comm_split. The MPI_Comm_dup is freed and is not
 * reported. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, sum, it;
    MPI_Comm half, copy;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    for (it = 0; it < 3; it++) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    }
    MPI_Comm_free(&copy);
    MPI_Finalize();
    return 0;
}
