/* fib-barriers: nprocs=3 outcome=ok interleavings=1 */
/*
 * barrier L28: relevant witness: recv L26 rank 0, send L35 rank 2
 * barrier L32: relevant witness: recv L26 rank 0, send L35 rank 2
 * barrier L34: relevant witness: recv L26 rank 0, send L35 rank 2
 *
 * A wildcard matched probe guarded by a barrier: rank 0 takes a message
 * from anyone with MPI_Mprobe, receives it with MPI_Mrecv and only then
 * enters the barrier; rank 2 sends only after the barrier, so the probe
 * can only take rank 1's message, sent before it: one interleaving. Delete
 * the barrier and rank 2's send at L35 can reach the probe at L26: the
 * pair (probe L26 on rank 0, send L35 on rank 2) becomes possible, so the
 * group is relevant. The matched probe is a wildcard receive for the
 * barrier verdicts, as it takes the message it finds.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Message msg;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf = rank;
    if (rank == 0) {
        MPI_Mprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
        MPI_Mrecv(&buf, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
