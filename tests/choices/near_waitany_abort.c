/* fib-choices: nprocs=3 outcome=crash interleavings=4 exhaustive=4 steering=31 */
/*
 * A near-miss of the Waitany row: rank 0 posts two
 * MPI_Irecv(MPI_ANY_SOURCE) and takes them with two MPI_Waitany, and
 * checks that the first result to complete is rank 1's, aborting
 * otherwise. Rank 2 sends only after rank 1 has sent to rank 0 (it waits
 * for rank 1's go-ahead), so natively rank 1's result comes first; but
 * MPI does not order messages from different senders, and in some orders
 * the first request to complete holds rank 2's result: the check decides
 * an MPI_Abort by the order, every order runs, and both modes report the
 * abort.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        int result[2];
        MPI_Request req[2];
        for (int i = 0; i < 2; i++)
            MPI_Irecv(&result[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < 2; i++) {
            int idx;
            MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE);
            if (i == 0 && result[idx] != 100) {
                printf("near_waitany_abort: the first result is %d, not rank 1's\n", result[idx]);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        printf("near_waitany_abort: rank 1's result came first\n");
    } else if (rank == 1) {
        int value = 100, go = 1;
        MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(&go, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    } else if (rank == 2) {
        int value = 200, go;
        MPI_Recv(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
