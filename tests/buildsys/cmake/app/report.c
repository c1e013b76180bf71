#include <mpi.h>
#include <stdio.h>
#include "report.h"

/* The heat's total, printed by rank 0. */
void report(double local) {
  int rank;
  double total = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("total heat %g\n", total);
}
