/* fib-test: nprocs=2 outcome=deadlock interleavings=3 codes=FIB001 */
/* Both ranks take exclusive locks on rank 0 of two windows, in opposite
 * orders, and hold the first while asking for the second. fib explores
 * every grant order: in one each rank holds its first lock and waits for
 * the other's (deadlock); in two, one rank takes both before the other
 * starts (3 interleavings). */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, *b1, *b2, x = 1;
    MPI_Win w1, w2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b1, &w1);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b2, &w2);
    MPI_Win first = rank == 0 ? w1 : w2, second = rank == 0 ? w2 : w1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, first);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, second);
    MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, second);
    MPI_Win_unlock(0, second);
    MPI_Win_unlock(0, first);
    MPI_Win_free(&w2);
    MPI_Win_free(&w1);
    MPI_Finalize();
    return 0;
}
