/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB002 */
/* Right after MPI_Init, rank 1 writes through a null pointer and dies with
 * SIGSEGV; rank 0 goes on to MPI_Finalize. No wildcard precedes the crash: 1
 * interleaving, crash attributed to rank 1. */
#include <stddef.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        volatile int *p = NULL;
        *p = 42;
    }
    MPI_Finalize();
    return 0;
}
