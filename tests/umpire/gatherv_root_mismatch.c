/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB009 */
/* Both ranks call MPI_Gatherv on MPI_COMM_WORLD, but rank 0 names root 0
 * and rank 1 names root 1. A rooted collective whose roots disagree is a
 * mismatch (FIB009), found before MPI runs it: 1 interleaving. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, all[2] = {0, 0}, counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Gatherv(&rank, 1, MPI_INT, all, counts, displs, MPI_INT, rank,
                MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
