/* fib: -n 3
 * A ring: every rank sends to its right neighbour and receives from its
 * left one, nonblocking, then all meet at a barrier. Correct at any size. */
#include "common.h"

int main(int argc, char **argv) {
  int rank, size, out, in = -1;
  MPI_Request reqs[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  out = rank;
  MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(&out, 1, MPI_INT, right_of(rank, size), 0, MPI_COMM_WORLD, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  SYNC();
  MPI_Finalize();
  return 0;
}
