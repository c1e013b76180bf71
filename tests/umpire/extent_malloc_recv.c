/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB039 at=FIB039:17 */
/* Rank 1 receives twenty ints into a block malloc made for ten: MPI
 * would write 40 bytes past the block, into the heap's own bookkeeping.
 * fib knows the block's size (it links the program's allocations through
 * its own wrappers) and stops the run before the receive. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, data[20] = {0};
    int *buf = malloc(10 * sizeof(int));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(data, 20, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(buf, 20, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
