/* A link error of the user's own: exchange_halo is declared, called on
 * line 12, and defined nowhere. fib reports FIB007 naming it, on this file
 * and line, as the user's failure (not a bug in fib). */
#include <mpi.h>

void exchange_halo(double *field, int n);

int main(int argc, char **argv) {
  double field[4] = {0};
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  exchange_halo(field, 4);
  MPI_Finalize();
  return 0;
}
