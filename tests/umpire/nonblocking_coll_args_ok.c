/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* The correct twins of ibcast_type_mismatch.c, iallgather_count_mismatch.c,
 * iallreduce_op_mismatch.c and igather_count_mismatch.c, whose arguments
 * agree where MPI requires it though they are not written alike: rank 0
 * broadcasts 2 ints that the others receive as one contiguous type of 2
 * ints (the same type signature); MPI_IN_PLACE sends of an MPI_Iallgather,
 * an MPI_Iallreduce and the root's MPI_Igather, whose send arguments MPI
 * ignores; an MPI_Iscatter whose root receives in place; an MPI_Igatherv
 * whose ranks send different counts, each the root's recvcounts[i]. No
 * point-to-point: 1 interleaving. */
#include <assert.h>
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv) {
    int rank, size, x[2] = {0, 0}, all[6] = {0}, sum, i;
    int counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3}, mine[3];
    MPI_Datatype pair;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);

    if (rank == 0) {
        x[0] = 4;
        x[1] = 5;
        MPI_Ibcast(x, 2, MPI_INT, 0, MPI_COMM_WORLD, &req);
    } else {
        MPI_Ibcast(x, 1, pair, 0, MPI_COMM_WORLD, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    assert(x[0] == 4 && x[1] == 5);

    all[rank] = rank + 10;
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD,
                   &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (i = 0; i < size; i++)
        assert(all[i] == i + 10);

    sum = rank;
    MPI_Iallreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                   &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    assert(sum == size * (size - 1) / 2);

    /* The root receives one pair from each rank, the others send 2 ints. */
    x[0] = rank;
    x[1] = -rank;
    if (rank == 0) {
        all[0] = 0;
        all[1] = 0;
        MPI_Igather(MPI_IN_PLACE, 0, MPI_INT, all, 1, pair, 0, MPI_COMM_WORLD,
                    &req);
    } else {
        MPI_Igather(x, 2, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        for (i = 0; i < size; i++)
            assert(all[2 * i] == i && all[2 * i + 1] == -i);

    /* The root scatters one int to each rank and keeps its own in place. */
    for (i = 0; i < size; i++)
        all[i] = 20 + i;
    if (rank == 0) {
        MPI_Iscatter(all, 1, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0,
                     MPI_COMM_WORLD, &req);
    } else {
        MPI_Iscatter(NULL, 0, MPI_INT, &sum, 1, MPI_INT, 0, MPI_COMM_WORLD,
                     &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    assert(rank == 0 || sum == 20 + rank);

    for (i = 0; i < 3; i++)
        mine[i] = rank;
    MPI_Igatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0,
                 MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        assert(all[0] == 0 && all[2] == 1 && all[5] == 2);

    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
