/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=FIB014 */
/* MPI_Comm_create builds a communicator of world ranks {0,1}; rank 2 gets
 * MPI_COMM_NULL. Ranks 0 and 1 exchange a message on the new communicator and
 * free it, then everyone meets in a world barrier. 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf = 0, members[2] = {0, 1};
    MPI_Group world_group, pair_group;
    MPI_Comm pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 2, members, &pair_group);
    MPI_Comm_create(MPI_COMM_WORLD, pair_group, &pair);
    if (rank == 2) {
        assert(pair == MPI_COMM_NULL);
    } else {
        if (rank == 0) {
            buf = 99;
            MPI_Send(&buf, 1, MPI_INT, 1, 0, pair);
        } else {
            MPI_Recv(&buf, 1, MPI_INT, 0, 0, pair, MPI_STATUS_IGNORE);
            assert(buf == 99);
        }
        MPI_Comm_free(&pair);
    }
    MPI_Group_free(&pair_group);
    MPI_Group_free(&world_group);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
