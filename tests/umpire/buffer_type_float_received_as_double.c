/* fib-test: nprocs=2 outcome=crash interleavings=1 codes=FIB032,FIB039 at=FIB032:23,FIB039:22 */
/* Rank 1 receives into a float as MPI_DOUBLE: a double arriving there
 * would be written as eight bytes into the float's four. Here rank 0
 * sends no element, so the run writes nothing; the receive is wrong all
 * the same, and fib reports it before running (FIB032 at `&x`); at run
 * time the receive's room, one MPI_DOUBLE, is eight bytes at a four-byte
 * float, so the run stops there before MPI sees it (FIB039). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        double d = 2.5;
        /* no element: the receive below cannot overwrite memory */
        MPI_Send(&d, 0, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        float x = 0;
        /* the buffer is a float */
        MPI_Recv(
            &x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%g\n", x);
    }
    MPI_Finalize();
    return 0;
}
