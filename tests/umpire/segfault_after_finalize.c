/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB002 */
/* Rank 0 writes through a null pointer after MPI_Finalize. The crash happens
 * after the last MPI call and is still reported (FIB002, SIGSEGV, rank 0). */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv) {
    int rank;
    int *volatile p = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    if (rank == 0)
        *p = 1;
    return 0;
}
