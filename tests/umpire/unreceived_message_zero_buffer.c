/* fib-test: nprocs=2 outcome=deadlock interleavings=1 codes=FIB001 flags=--zero-buffer */
/* The program of unreceived_message.c without buffering: the send of tag 2
 * never finds its receive, so rank 0 blocks in it while rank 1 waits in
 * MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, a = 1, b = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
