/* fib-test: nprocs=3 outcome=ok interleavings=4 codes=FIB014 */
/* Rank 0 posts an MPI_ANY_SOURCE MPI_Irecv and starts an MPI_Ibarrier, then
 * takes whichever completes first with MPI_Waitany and the other with
 * MPI_Wait; ranks 1 and 2 each send rank 0 a message and join the
 * Ibarrier, and rank 0 receives the second message by name. The wildcard
 * may take either message (2 branches), and in each the Waitany may
 * return the receive or the Ibarrier first (2 branches): 4 interleavings,
 * all complete. The senders send before they join, so the Ibarrier orders
 * no message: irrelevant (FIB014). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, v, idx;
    MPI_Request reqs[2];
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitany(2, reqs, &idx, &st);
        if (idx == 0) {
            MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(&reqs[0], &st);
        }
        MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE == 1 ? 2 : 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (x + y != 30)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else {
        v = 10 * rank;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
