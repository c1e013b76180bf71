/* The program of this directory: it uses halo_sum from halo.c. */
#include <mpi.h>
#include <stdio.h>

int halo_sum(int left, int right);

int main(int argc, char **argv) {
  int rank, size, got = -1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    MPI_Recv(&got, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else if (rank == 1) {
    got = halo_sum(rank, size);
    MPI_Send(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return got < 0;
}
