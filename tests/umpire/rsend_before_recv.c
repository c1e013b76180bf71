/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB025 */
/* Rank 0 sends with MPI_Rsend, then tells rank 1 to go on; rank 1 posts
 * the matching receive only after it has heard from rank 0. The receive
 * cannot be posted when the ready send is issued, which MPI makes erroneous
 * (FIB025). Many MPI libraries deliver the message anyway, so the program
 * seems to work. */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv) {
    int rank, x = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Rsend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(NULL, 0, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
