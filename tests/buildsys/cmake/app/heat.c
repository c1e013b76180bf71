/* fib: -n 2 */
#include <mpi.h>
#include "halo.h"
#include "report.h"

#define N 8

int main(int argc, char **argv) {
  double u[N + 4] = {0};
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  u[halo_width()] = rank + 1;
  for (int step = 0; step < 2; step++) {
    halo_exchange(u, N, MPI_COMM_WORLD);
    for (int i = halo_width(); i < N + halo_width(); i++)
      u[i] = 0.5 * (u[i - 1] + u[i + 1]);
  }
  report(u[halo_width()]);
  MPI_Finalize();
  return 0;
}
