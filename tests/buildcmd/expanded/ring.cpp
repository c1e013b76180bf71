// A ring whose build compiles the preprocessor's output (ring.2.cpp, as
// `mpicxx -E` writes it: MPI's headers, C++ bindings included, are in it).
#include <mpi.h>
#include <vector>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> x(4, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Sendrecv_replace(x.data(), 4, MPI_INT, (rank + 1) % size, 0,
                         (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    MPI_Finalize();
    return x[0] == (rank + size - 1) % size ? 0 : 1;
}
