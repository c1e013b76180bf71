/* fib-test: nprocs=3 outcome=crash interleavings=2 codes=FIB021 */
/* Rank 0 receives two ints from any source. Rank 1 sends two ints, rank 2
 * sends three: in the interleaving where rank 2's message comes first, the
 * receive is truncated (FIB021); in the other the next receive takes rank 2's
 * message with room for it. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, buf[3] = {0, 0, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Status st;
        MPI_Recv(buf, 2, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        MPI_Recv(buf, 3, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    } else {
        MPI_Send(buf, rank + 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
