/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=FIB014 */
/* A 2x2 process grid's rows made with one MPI_Comm_create call whose group
 * differs between the rows (allowed since MPI 2.2: each group is passed by
 * all of its members): ranks {0,1} and {2,3}. Each row's first rank takes
 * its partner's message with MPI_ANY_SOURCE (one sender: no choice), both
 * sum their world ranks over the row, and the world meets in a barrier
 * that orders nothing. 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, row_rank, buf = 0, sum = 0, members[2];
    MPI_Group world_group, row_group;
    MPI_Comm row;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    members[0] = rank / 2 * 2;
    members[1] = members[0] + 1;
    MPI_Group_incl(world_group, 2, members, &row_group);
    MPI_Comm_create(MPI_COMM_WORLD, row_group, &row);
    assert(row != MPI_COMM_NULL);
    MPI_Comm_size(row, &size);
    MPI_Comm_rank(row, &row_rank);
    assert(size == 2 && row_rank == rank % 2);
    if (row_rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, row, MPI_STATUS_IGNORE);
        assert(buf == rank + 1);
    } else {
        buf = rank;
        MPI_Send(&buf, 1, MPI_INT, 0, 0, row);
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
    assert(sum == 2 * members[0] + 1);
    MPI_Comm_free(&row);
    MPI_Group_free(&row_group);
    MPI_Group_free(&world_group);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
