/* fib-test: nprocs=4 outcome=ok interleavings=2 codes=- */
/* Two halves (ranks 0, 1 and ranks 2, 3) joined by MPI_Intercomm_create.
 * Ranks 2 and 3 each send one message to remote rank 0 (world rank 0).
 * Rank 0 probes with MPI_ANY_SOURCE, receives the probed message from the
 * source the probe named, then takes the other one with an MPI_Irecv from
 * MPI_ANY_SOURCE. The wildcard on the intercommunicator ranges over the
 * remote group: the probe may see either sender (2 interleavings), and
 * the sources are remote ranks 0 and 1. Rank 1 sends nothing. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, buf = -1;
    MPI_Comm local, inter;
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 7, &inter);
    if (rank == 0) {
        int first, seen = 0;
        MPI_Probe(MPI_ANY_SOURCE, 0, inter, &st);
        first = st.MPI_SOURCE;
        assert(first == 0 || first == 1);
        MPI_Recv(&buf, 1, MPI_INT, first, 0, inter, MPI_STATUS_IGNORE);
        assert(buf == first + 2);
        seen |= 1 << first;
        MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, inter, &req);
        MPI_Wait(&req, &st);
        assert(buf == st.MPI_SOURCE + 2);
        seen |= 1 << st.MPI_SOURCE;
        assert(seen == 3);
    } else if (side == 1) {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, inter);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
