/* fib: -n 2 -lm
 * A C program calling libm's sqrt on a value known only at run time: it
 * links only with -lm (which fib passes by default; the directive says it
 * too). Rank 1 sends its root to rank 0. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank;
  double root;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  root = sqrt((double)(rank + argc + 7));
  if (rank == 1) {
    MPI_Send(&root, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Recv(&root, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("root %.3f\n", root);
  }
  MPI_Finalize();
  return 0;
}
