/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Two halves (ranks 0, 1 and ranks 2, 3) joined by MPI_Intercomm_create,
 * then merged with MPI_Intercomm_merge: the first half passes high = 1, so
 * the second half comes first in the merged communicator (world ranks 2,
 * 3, 0, 1). An MPI_Allreduce over it sums every world rank, and merged rank
 * 0 (world rank 2) sends to merged rank 3 (world rank 1). 1 interleaving,
 * every communicator freed. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, me, size, sum = -1, buf = -1;
    MPI_Comm local, inter, merged;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 11, &inter);
    MPI_Intercomm_merge(inter, side == 0, &merged);
    MPI_Comm_rank(merged, &me);
    MPI_Comm_size(merged, &size);
    assert(size == 4 && me == (rank + 2) % 4);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
    assert(sum == 6);
    if (me == 0) {
        MPI_Send(&rank, 1, MPI_INT, 3, 0, merged);
    } else if (me == 3) {
        MPI_Recv(&buf, 1, MPI_INT, 0, 0, merged, MPI_STATUS_IGNORE);
        assert(buf == 2);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
