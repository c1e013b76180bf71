/* A request server: rank 0 answers N requests from every other rank,
 * receiving each with MPI_ANY_SOURCE; the clients send one request at a time
 * and wait for the answer. Every receive is a wildcard choice, so one
 * interleaving has (size - 1) * N choice points: the benchmark runs the first
 * interleaving only (fib check --max-interleavings 1) and measures how the
 * scheduler scales with choices. N is the first argument (default 100). */
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 100, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 0; i < n * (size - 1); i++) {
            MPI_Status st;
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            MPI_Send(&x, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
        }
    } else {
        for (int i = 0; i < n; i++) {
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
