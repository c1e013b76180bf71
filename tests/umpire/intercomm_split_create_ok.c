/* fib-test: nprocs=4 outcome=ok interleavings=1 probes=1 codes=- */
/* The row's order reaches a check, a count or a branch, so no static fact
 * vouches for it; 1 probe run(s) of its other orders make every rank's
 * calls and sent data the same, so one interleaving stands for them all. */
/* Two halves (ranks 0, 1 and ranks 2, 3) joined by MPI_Intercomm_create,
 * then MPI_Comm_split of the intercommunicator: each group splits on its
 * own, and a colour's two parts make a new intercommunicator. Colour 0
 * holds ranks 0 and 2, colour 1 ranks 1 and 3: each new intercommunicator
 * has one rank a side, and rank 2 (and 3) sends to its only remote rank.
 * A second split gives colour 5 to one group only: no remote part, so
 * MPI_COMM_NULL everywhere. A third keeps everyone (colour 0, keys
 * reversed): ranks 2 and 3 both send to remote rank 0, now world rank 1,
 * which takes them with MPI_ANY_SOURCE, in either order: 2 interleavings.
 * Then MPI_Comm_create of the intercommunicator, each side passing the
 * group of its local rank 0: ranks 0 and 2 get an intercommunicator of
 * one rank a side, ranks 1 and 3 MPI_COMM_NULL. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, side, size, buf = -1;
    MPI_Comm local, inter, pair, none, all, sub;
    MPI_Group group, first;
    int zero = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    side = rank / 2;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side == 0 ? 2 : 0, 7, &inter);

    MPI_Comm_split(inter, rank % 2, 0, &pair);
    MPI_Comm_remote_size(pair, &size);
    assert(size == 1);
    if (side == 1) {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, pair);
    } else {
        MPI_Recv(&buf, 1, MPI_INT, 0, 0, pair, MPI_STATUS_IGNORE);
        assert(buf == rank + 2);
    }

    MPI_Comm_split(inter, side == 0 ? 5 : MPI_UNDEFINED, 0, &none);
    assert(none == MPI_COMM_NULL);

    MPI_Comm_split(inter, 0, -rank, &all);
    if (side == 1) {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 1, all);
    } else if (rank == 1) {
        for (int i = 0; i < 2; i++) {
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 1, all, &st);
            assert(buf == 3 - st.MPI_SOURCE);
        }
    }
    MPI_Comm_group(inter, &group);
    MPI_Group_incl(group, 1, &zero, &first);
    MPI_Comm_create(inter, first, &sub);
    if (rank % 2 == 1) {
        assert(sub == MPI_COMM_NULL);
    } else {
        MPI_Comm_remote_size(sub, &size);
        assert(size == 1);
        if (side == 1) {
            buf = 42;
            MPI_Send(&buf, 1, MPI_INT, 0, 2, sub);
        } else {
            MPI_Recv(&buf, 1, MPI_INT, 0, 2, sub, MPI_STATUS_IGNORE);
            assert(buf == 42);
        }
        MPI_Comm_free(&sub);
    }
    MPI_Group_free(&first);
    MPI_Group_free(&group);
    MPI_Comm_free(&all);
    MPI_Comm_free(&pair);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
