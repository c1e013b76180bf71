/* Builds only with the flags of compile_commands.json (or, in a copy
 * without it, of fib.toml's cflags): an include directory, a definition
 * and an optimisation level (fib builds at -O0 unless told otherwise).
 * Two ranks exchange one message. */
#include <mpi.h>
#include "config.h"
#ifndef EXPECTED_RANKS
#error "compile with -DEXPECTED_RANKS (compile_commands.json or fib.toml gives it)"
#endif
#ifndef __OPTIMIZE__
#error "compile with -O2 (compile_commands.json or fib.toml gives it)"
#endif

int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    MPI_Send(&rank, 1, MPI_INT, 1, GREETING_TAG, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(&x, 1, MPI_INT, 0, GREETING_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
