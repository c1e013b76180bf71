/* A program with a syntax error on line 7: fib must report the build
 * failure at the user's own file and line, and exit with 2. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int x = 1
  MPI_Finalize();
  return x;
}
