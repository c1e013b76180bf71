/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Ranks 0, 1 and ranks 2, 3 split MPI_COMM_WORLD in two halves and join
 * them with MPI_Intercomm_create. On the intercommunicator a rank names the
 * other half's ranks: local rank i sends to remote rank i and receives its
 * answer back. The sizes are those of the local and the remote group. Every
 * receive names its source: 1 interleaving, and both communicators are
 * freed. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, me, size, remote, buf;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 99, &inter);
    MPI_Comm_rank(inter, &me);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &remote);
    assert(me == rank % 2 && size == 2 && remote == 2);
    if (side == 0) {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, me, 0, inter);
        MPI_Recv(&buf, 1, MPI_INT, me, 1, inter, MPI_STATUS_IGNORE);
        assert(buf == rank + 12);
    } else {
        MPI_Recv(&buf, 1, MPI_INT, me, 0, inter, MPI_STATUS_IGNORE);
        assert(buf == rank - 2);
        buf += 12;
        MPI_Send(&buf, 1, MPI_INT, me, 1, inter);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
