/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* MPI_Comm_split with a single colour and key = -rank reverses the ranks:
 * world rank r has local rank 2 - r. Local rank 0 (world rank 2) receives from
 * local ranks 1 and 2 by their local numbers and checks the world ranks in the
 * payload, so a verifier that confuses local and world ranks reports a false
 * deadlock. 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, local, buf = -1;
    MPI_Comm rev;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
    MPI_Comm_rank(rev, &local);
    assert(local == 2 - rank);
    if (local == 0) {
        MPI_Recv(&buf, 1, MPI_INT, 1, 0, rev, MPI_STATUS_IGNORE);
        assert(buf == 1);
        MPI_Recv(&buf, 1, MPI_INT, 2, 0, rev, MPI_STATUS_IGNORE);
        assert(buf == 0);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, rev);
    }
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0;
}
