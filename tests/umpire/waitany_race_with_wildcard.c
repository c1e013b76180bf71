/* fib-test: nprocs=4 outcome=deadlock interleavings=4 codes=FIB001 */
/* Rank 0 waits with MPI_Waitany for a message from rank 1 or from rank 2.
 * Rank 1's comes at once; rank 2 sends only after its wildcard receive and
 * the receive from the other sender, so its message is complete when the
 * Waitany chooses only if the wildcard was decided first. When the Waitany
 * returns rank 2's message, rank 0 waits for a message nobody sends: a
 * deadlock that only the interleavings deciding the wildcard first show.
 * Four outcomes: the wildcard gets rank 1 or rank 3, times the two answers
 * of the Waitany. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0, y = 0, idx;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int a = 0, b = 0;
        MPI_Request reqs[2];
        MPI_Irecv(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&b, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        if (idx == 1)
            MPI_Recv(&x, 1, MPI_INT, 3, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Status st;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE == 1 ? 3 : 1, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Send(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
