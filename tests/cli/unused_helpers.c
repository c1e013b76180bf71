/* Helpers a program's header gives it, as a library's headers do: the
 * program calls `step`, which calls `total`; it never calls
 * `shared_window`, whose window would be created and freed, nor
 * `checkpoint`. Code that nothing calls never runs, so fib checks the
 * program: its one run is ok, and the barrier in `checkpoint` is not
 * covered since it is in a function the program never calls. */
#include <mpi.h>

static inline void shared_window(int *base, MPI_Win *win) {
  MPI_Win_create(base, sizeof *base, sizeof *base, MPI_INFO_NULL, MPI_COMM_WORLD, win);
  MPI_Win_free(win);
}

static inline void checkpoint(void) {
  MPI_Barrier(MPI_COMM_WORLD);
}

static inline int total(int x) {
  int sum = 0;
  MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

static int step(int x) { return total(x) + 1; }

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int sum = step(rank);
  MPI_Finalize();
  return sum > 0 ? 0 : 1;
}
