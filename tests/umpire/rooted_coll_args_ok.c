/* fib-test: nprocs=3 outcome=ok interleavings=1 codes=- */
/* The correct twins of gather_count_mismatch.c and
 * gatherv_count_mismatch.c, whose arguments agree where MPI requires it
 * though they are not written alike: an MPI_Gather whose root receives
 * one contiguous pair of doubles from each rank, in place for its own,
 * while the others send 2 doubles; an MPI_Scatter whose root keeps its
 * block in place; an MPI_Gatherv and an MPI_Scatterv whose ranks give
 * different counts, each the root's count for it, the root's own in
 * place; an MPI_Allgatherv in place and an MPI_Reduce_scatter whose
 * counts differ by rank but are the same on every rank. No
 * point-to-point: 1 interleaving. */
#include <assert.h>
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv) {
    int rank, size, i, got;
    double d[2], dall[6] = {0};
    int all[6] = {0}, mine[3], counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
    int ones[3] = {1, 1, 1}, rcount[2] = {0};
    MPI_Datatype pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);

    d[0] = rank;
    d[1] = 0.5;
    if (rank == 1) {
        dall[2] = 1;
        dall[3] = 0.5;
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DOUBLE, dall, 1, pair, 1,
                   MPI_COMM_WORLD);
        for (i = 0; i < size; i++)
            assert(dall[2 * i] == i && dall[2 * i + 1] == 0.5);
    } else {
        MPI_Gather(d, 2, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    }

    for (i = 0; i < size; i++)
        all[i] = 30 + i;
    if (rank == 2) {
        MPI_Scatter(all, 1, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 2,
                    MPI_COMM_WORLD);
    } else {
        MPI_Scatter(NULL, 0, MPI_INT, &got, 1, MPI_INT, 2, MPI_COMM_WORLD);
        assert(got == 30 + rank);
    }

    for (i = 0; i < 3; i++)
        mine[i] = rank;
    if (rank == 0) {
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, all, counts, displs, MPI_INT, 0,
                    MPI_COMM_WORLD);
    } else {
        MPI_Gatherv(mine, rank + 1, MPI_INT, NULL, counts, displs, MPI_INT, 0,
                    MPI_COMM_WORLD);
    }

    MPI_Scatterv(all, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 0,
                 MPI_COMM_WORLD);

    for (i = 0; i < counts[rank]; i++)
        all[displs[rank] + i] = rank;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, all, counts, displs, MPI_INT,
                   MPI_COMM_WORLD);
    assert(all[0] == 0 && all[1] == 1 && all[5] == 2);

    /* Rank i gets the sum of element i; rank 0 gets nothing. */
    counts[0] = 0;
    counts[1] = 1;
    counts[2] = 2;
    MPI_Reduce_scatter(ones, rcount, counts, MPI_INT, MPI_SUM,
                       MPI_COMM_WORLD);
    assert(rank == 0 || rcount[0] == size);
    assert(rank != 2 || rcount[1] == size);

    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
