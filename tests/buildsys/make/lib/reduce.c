/* A hand-written sum: the root takes the first contribution from whichever
 * rank sends first, then the others in rank order, assuming the first was
 * rank 1's. When rank 2's comes first, the root waits for rank 2 again,
 * forever. REDUCE_ROOT comes from the library's Makefile only. */
#include "reduce.h"
#ifndef REDUCE_ROOT
#error "compile with -DREDUCE_ROOT (lib/Makefile does)"
#endif

double reduce_sum(double x, MPI_Comm comm) {
  int rank, size;
  double sum = x, y;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank == REDUCE_ROOT) {
    MPI_Recv(&y, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, comm, MPI_STATUS_IGNORE);
    sum += y;
    for (int r = 2; r < size; r++) {
      MPI_Recv(&y, 1, MPI_DOUBLE, r, 0, comm, MPI_STATUS_IGNORE);
      sum += y;
    }
  } else {
    MPI_Send(&x, 1, MPI_DOUBLE, REDUCE_ROOT, 0, comm);
  }
  MPI_Bcast(&sum, 1, MPI_DOUBLE, REDUCE_ROOT, comm);
  return sum;
}
