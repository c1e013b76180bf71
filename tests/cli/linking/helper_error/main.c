/* Compiles; the error is in helper.c, line 6. */
#include <mpi.h>

int next_of(int rank, int size);

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rank = next_of(rank, size);
  MPI_Finalize();
  return rank < 0;
}
