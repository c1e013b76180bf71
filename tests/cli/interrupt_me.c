/* fib: -n 3 */
/* Rank 0 takes one message from each other rank through two wildcard
 * receives; then every rank meets in a barrier after all the traffic.
 * fib's first interleaving gives rank 0 rank 1's message first, and the
 * program finishes. In the other order (the probe run of the first, or
 * the second interleaving with --exhaustive), rank 0 gets rank 2's first:
 * it creates the file its first argument names and computes forever, so
 * that a test can interrupt fib once that file exists, one interleaving
 * in. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int rank, first = 0, second = 0;
  volatile int z = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Recv(&first, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&second, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (first == 2 && argc > 1) {
      FILE *f = fopen(argv[1], "w");
      if (f) fclose(f);
      while (z) {}
      /* Never reached: it makes what rank 0 received decide an exit, so
       * that fib runs both orders of the two receives. */
      exit(first + second);
    }
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
