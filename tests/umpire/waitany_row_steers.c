/* fib-test: nprocs=4 outcome=ok interleavings=36 codes=FIB014 */
/* Rank 0 posts three MPI_Irecv from MPI_ANY_SOURCE and takes them with
 * three MPI_Waitany; ranks 1-3 send one message each. Which slot completed
 * first decides whether rank 0 then synchronises with itself, an MPI call:
 * every order of the Waitany calls is a different run, and all 3! orders
 * of each of the 3! ways to match are run. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, idx, buf[3] = {0}, first = -1;
    MPI_Request req[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < 3; i++) {
            MPI_Waitany(3, req, &idx, MPI_STATUS_IGNORE);
            if (i == 0)
                first = idx;
        }
        if (first == 0)
            MPI_Barrier(MPI_COMM_SELF);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
