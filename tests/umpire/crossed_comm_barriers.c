/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001,FIB016 */
/* Both ranks duplicate MPI_COMM_WORLD. Rank 0 then enters a barrier on
 * MPI_COMM_WORLD followed by one on the duplicate; rank 1 does them in the
 * opposite order. Each barrier waits for the member that is stuck in the
 * other one: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(dup);
    } else {
        MPI_Barrier(dup);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
