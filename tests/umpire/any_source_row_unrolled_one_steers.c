/* fib-test: nprocs=3 outcome=ok interleavings=2 codes=FIB014 */
/* The receives of any_source_row_unrolled.c, but what the second one gets
 * decides the flag rank 0 sends rank 1, on which rank 1 decides whether to
 * make another MPI call: the first site's data steers nothing, the
 * second's does, so the orders of the row differ, and both run (the
 * barrier on MPI_COMM_SELF is irrelevant, FIB014). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b = 0, flag = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        flag = b == 2;
        MPI_Send(&flag, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        printf("got %d and %d\n", a, b);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Recv(&flag, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (flag)
                MPI_Barrier(MPI_COMM_SELF);
        }
    }
    MPI_Finalize();
    return 0;
}
