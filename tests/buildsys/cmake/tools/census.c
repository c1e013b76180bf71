/* fib: -n 3 */
/* Rank 0 counts the other ranks, taking their messages in any order. */
#include <mpi.h>
#include "report.h"

int main(int argc, char **argv) {
  int rank, size, counted = -1, x;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (counted = 1; counted < size; counted++)
      MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  report(counted);
  MPI_Finalize();
  return 0;
}
