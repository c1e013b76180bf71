/* Two calls fib does not model, on a path only a run with more than four
 * arguments takes: fib names both before running, at their lines, and
 * does not run the program. With --run-unsupported and no arguments the
 * run completes without reaching them; with five arguments it stops at
 * MPI_Iscan_c, which the interposition library reports by name. */
#include <mpi.h>
int main(int argc, char **argv) {
  int rank, x = 1, y = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 5) {
    MPI_Request req;
    MPI_Count n = 1;
    MPI_Iscan_c(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Ibcast_c(&x, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    y += x;
  }
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
