// fib: -n 3
// C++ with <cmath> and the standard library: it links with the C++ MPI
// compiler (mpicxx), not the C one. Every rank sends its value to rank 0,
// which takes them in rank order and prints their Euclidean norm.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double mine = std::sqrt(2.0 * rank + 1.0);
  if (rank == 0) {
    std::vector<double> all(size, mine);
    for (int r = 1; r < size; ++r)
      MPI_Recv(&all[r], 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double sum = 0.0;
    for (double v : all)
      sum += v * v;
    std::printf("norm %.0f\n", std::floor(std::sqrt(sum)));
  } else {
    MPI_Send(&mine, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
