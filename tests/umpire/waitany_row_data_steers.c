/* fib-test: nprocs=4 outcome=ok interleavings=6 codes=FIB014 */
/* Rank 0 posts three MPI_Irecv from MPI_ANY_SOURCE and takes them with
 * three MPI_Waitany; ranks 1-3 send their rank. What the first receive
 * got decides whether rank 0 synchronises with itself, so the 3! = 6 ways
 * the receives can match are each run; which Waitany returned which
 * request reaches no MPI call, so each of them stands for the 3! orders of
 * the Waitany calls (36 runs with --exhaustive). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, idx, buf[3] = {0};
    MPI_Request req[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < 3; i++) {
            MPI_Waitany(3, req, &idx, MPI_STATUS_IGNORE);
            printf("slot %d done\n", idx);
        }
        if (buf[0] == 1)
            MPI_Barrier(MPI_COMM_SELF);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
