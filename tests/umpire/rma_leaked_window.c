/* fib-test: nprocs=2 outcome=ok interleavings=1 codes=FIB037 */
/* The window is never freed before MPI_Finalize. */
#include <mpi.h>
int main(int argc, char **argv) {
    int *b;
    MPI_Win w;
    MPI_Init(&argc, &argv);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
    MPI_Win_fence(0, w);
    MPI_Win_fence(0, w);
    MPI_Finalize();
    return 0;
}
