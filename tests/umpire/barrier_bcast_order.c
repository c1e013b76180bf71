/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB009,FIB016 */
/* Rank 0 calls MPI_Barrier then MPI_Bcast on MPI_COMM_WORLD; rank 1 calls
 * MPI_Bcast then MPI_Barrier. Collectives on one communicator must be called in
 * the same order by every member, so the first collective of each rank can
 * never form a match set: deadlock, 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
