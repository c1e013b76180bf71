/* Rank 0 takes the messages of ranks 1 and 2 with two wildcard receives
 * (two interleavings); every rank then passes the barrier, and rank 2
 * crashes after it. The barrier is reached in every interleaving before
 * the crash, so it gets a verdict (irrelevant: no message follows it). */
#include <mpi.h>
#include <stddef.h>
int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2) {
    volatile int *p = NULL;
    *p = 1;
  }
  MPI_Finalize();
  return 0;
}
