/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB009,FIB016 */
/* Rank 0 calls MPI_Reduce and rank 1 calls MPI_Allreduce on MPI_COMM_WORLD,
 * each followed by a barrier. Different collective operations never form one
 * match set: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in, out = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    in = rank + 1;
    if (rank == 0)
        MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
