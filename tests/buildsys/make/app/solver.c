/* fib: -n 3 */
#include <mpi.h>
#include <stdio.h>
#include "reduce.h"

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double total = reduce_sum(rank + 1.0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("total %g\n", total);
  MPI_Finalize();
  return 0;
}
