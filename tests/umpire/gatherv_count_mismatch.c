/* fib-test: nprocs=3 outcome=crash interleavings=1 codes=FIB031 at=FIB031:15 */
/* The root of an MPI_Gatherv receives 1, 2 and 3 ints from ranks 0, 1 and
 * 2, but rank 2 sends 2: its count is not the root's recvcounts[2] (FIB031
 * at rank 0's call, labelling rank 2's). Ranks 0 and 1 send what the root
 * receives from them, though their counts differ. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, mine[3] = {1, 2, 3}, all[6] = {0};
    int counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Meant to be rank + 1. */
    int n = rank == 2 ? 2 : rank + 1;
    MPI_Gatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, 0,
                MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
