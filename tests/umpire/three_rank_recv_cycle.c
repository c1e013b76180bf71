/* fib-test: nprocs=3 outcome=deadlock interleavings=1 codes=FIB001 */
/* Each rank receives from its left neighbour before sending to its right
 * neighbour. All three block in MPI_Recv around the cycle and no send is ever
 * issued: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, in = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Recv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&rank, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
