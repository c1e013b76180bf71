/* Rank 0 computes forever after a barrier: fib must stop the run at the
 * time limit, report a timeout, and leave no process behind. */
#include <mpi.h>
int main(int argc, char **argv) {
  int rank; volatile int z = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) while (z) {}
  MPI_Finalize();
  return 0;
}
