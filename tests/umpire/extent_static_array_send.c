/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB039 at=FIB039:14 */
/* Rank 0 sends ten doubles from an array of eight: MPI would read the 16
 * bytes after the array and deliver them. fib compares the count times
 * MPI_DOUBLE's extent with the array's size before the send reaches MPI.
 * The twin, extent_ok.c, sends the eight it has. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank;
    double a[8] = {0}, b[10];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(a, 10, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(b, 10, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
