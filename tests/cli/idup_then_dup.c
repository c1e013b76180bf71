/* Every rank starts an MPI_Comm_idup, makes a second communicator with
 * MPI_Comm_dup before waiting for the first, and then uses both: ranks 1
 * and 2 send to rank 0 on the idup'ed one, whose two wildcard receives
 * take them in either order (two interleavings), and all meet in a
 * barrier on the dup'ed one. The communicators are named in the order
 * they are made complete: the dup's first, the idup's at its wait. */
#include <mpi.h>
int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Comm a, b;
  MPI_Request req;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_idup(MPI_COMM_WORLD, &a, &req);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (rank == 0) {
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, a, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, a, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 0, a);
  }
  MPI_Barrier(b);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Finalize();
  return 0;
}
