/* fib: -n 2 -lscale
 * Uses scale() from a library outside the tree, libscale.a: the directive
 * asks for -lscale, and fib.toml's `link` says where it is (-L). */
#include <mpi.h>

int scale(int x);

int main(int argc, char **argv) {
  int rank, v = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    v = scale(21);
    MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return rank == 1 && v != 42;
}
