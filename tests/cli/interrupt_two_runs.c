/* fib: -n 4 */
/* Rank 0 takes one message from each other rank through three wildcard
 * receives. When the first message is rank 1's, the program finishes;
 * when it is rank 2's or rank 3's, rank 0 creates the file named by its
 * first argument with ".2" or ".3" appended and computes forever. With two
 * jobs, fib runs both of those interleavings at once after the first two,
 * so that a test can interrupt it while two runs are in progress. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int rank, first = 0, other = 0;
  volatile int z = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Recv(&first, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&other, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&other, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (first != 1 && argc > 1) {
      char name[4096];
      snprintf(name, sizeof name, "%s.%d", argv[1], first);
      FILE *f = fopen(name, "w");
      if (f) fclose(f);
      while (z) {}
      /* Never reached: it makes what rank 0 received decide an exit, so
       * that fib runs every order of the three receives. */
      exit(first + other);
    }
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
