/* The program of this directory uses exchange() from exchange.c and its
 * own log_step(). legacy.c, which no program uses, defines log_step too:
 * linking it would be a "multiple definition" error, and fib does not. */
#include <mpi.h>
#include <stdio.h>

void exchange(int rank, int size);

void log_step(int rank) { fprintf(stderr, "rank %d done\n", rank); }

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  exchange(rank, size);
  log_step(rank);
  MPI_Finalize();
  return 0;
}
