/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Two halves (ranks 0, 1 and ranks 2, 3) joined by MPI_Intercomm_create.
 * World rank 1 broadcasts to the other half: it passes MPI_ROOT, rank 0 of
 * its half MPI_PROC_NULL, and ranks 2 and 3 name the root by its rank in
 * the remote group, 1. Then an MPI_Allreduce on the intercommunicator (each
 * half gets the sum of the other's ranks) and an MPI_Ireduce from the
 * second half to world rank 0, waited for. Every member of both halves
 * calls the same collectives in the same order: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, buf = -1, sum = -1;
    MPI_Comm local, inter;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 3, &inter);
    if (rank == 1) {
        buf = 42;
        MPI_Bcast(&buf, 1, MPI_INT, MPI_ROOT, inter);
    } else if (rank == 0) {
        MPI_Bcast(&buf, 1, MPI_INT, MPI_PROC_NULL, inter);
        assert(buf == -1);
    } else {
        MPI_Bcast(&buf, 1, MPI_INT, 1, inter);
        assert(buf == 42);
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter);
    assert(sum == (side == 0 ? 5 : 1));
    if (side == 1) {
        MPI_Ireduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 0, inter, &req);
    } else {
        MPI_Ireduce(&rank, &sum, 1, MPI_INT, MPI_SUM, rank == 0 ? MPI_ROOT : MPI_PROC_NULL,
                    inter, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        assert(sum == 5);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
