/* fib-test: nprocs=3 outcome=deadlock interleavings=2 codes=FIB001 */
/* Ranks 1 and 2 each send a request to rank 0. Rank 0 takes the first with
 * MPI_ANY_SOURCE, drains the other, and sends a "go" token to whichever rank
 * came first. Rank 1 always waits for the token (it assumes it wins); rank 2
 * does not. Two interleavings: when rank 1 wins everything completes, when
 * rank 2 wins its token is never received and rank 1 waits forever, so the
 * deadlock is on rank 1, not on the rank that holds the wildcard. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0, token = 7;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        int first = st.MPI_SOURCE;
        MPI_Recv(&buf, 1, MPI_INT, 3 - first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&token, 1, MPI_INT, first, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
