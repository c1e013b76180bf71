/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Every nonblocking collective, each started on every rank in the same
 * order and completed through a different wait or test: Ibcast (Wait),
 * Ireduce (Test loop), Iallreduce and Igather (Waitall), Igatherv and
 * Iscatter (Waitany on each), Iscatterv and Iallgather (Waitsome on each),
 * Iallgatherv (Testall loop), Ialltoall (Testany loop), Ialltoallv and
 * Ialltoallw (Testsome loop), Iscan, Iexscan, Ireduce_scatter and
 * Ireduce_scatter_block (Waitall), on MPI_COMM_WORLD and on a split
 * communicator, each result checked. No point-to-point, and every
 * Waitany, Waitsome, Testany and Testsome has one request, so nothing to
 * choose: 1 interleaving. (Two complete requests in one Waitany would be a
 * choice of which one returns first, on every rank.) */
#include <assert.h>
#include <mpi.h>

static void waitsome_all(int n, MPI_Request *r)
{
    int left = n, out, idx[4];
    while (left > 0) {
        MPI_Waitsome(n, r, &out, idx, MPI_STATUSES_IGNORE);
        if (out == MPI_UNDEFINED)
            break;
        left -= out;
    }
}

static void testsome_all(int n, MPI_Request *r)
{
    int left = n, out, idx[4];
    while (left > 0) {
        MPI_Testsome(n, r, &out, idx, MPI_STATUSES_IGNORE);
        if (out == MPI_UNDEFINED)
            break;
        left -= out;
    }
}

int main(int argc, char **argv)
{
    int rank, size, v, sum = 0, flag = 0, idx, i;
    int all[4] = {0}, parts[4] = {0}, out[4] = {0}, counts[4], displs[4];
    int scan = 0, exscan = -1, rs[4] = {0}, rsb = 0, half_sum = 0;
    MPI_Datatype types[4];
    MPI_Request r[4];
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    assert(size == 4);
    for (i = 0; i < 4; i++) {
        counts[i] = 1;
        displs[i] = i;
        types[i] = MPI_INT;
    }

    v = (rank == 0) ? 17 : 0;
    MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    assert(v == 17);

    MPI_Ireduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r[0]);
    while (!flag)
        MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    if (rank == 0)
        assert(sum == 6);

    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[0]);
    MPI_Igather(&rank, 1, MPI_INT, all, 1, MPI_INT, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    assert(sum == 3);
    if (rank == 1)
        assert(all[0] == 0 && all[3] == 3);

    for (i = 0; i < 4; i++)
        parts[i] = 100 + i;
    MPI_Igatherv(&rank, 1, MPI_INT, out, counts, displs, MPI_INT, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Iscatter(parts, 1, MPI_INT, &v, 1, MPI_INT, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Waitany(1, &r[1], &idx, MPI_STATUS_IGNORE);
    MPI_Waitany(1, &r[0], &idx, MPI_STATUS_IGNORE);
    assert(v == 100 + rank);
    if (rank == 2)
        assert(out[3] == 3);

    MPI_Iscatterv(parts, counts, displs, MPI_INT, &v, 1, MPI_INT, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Iallgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &r[1]);
    waitsome_all(1, &r[0]);
    waitsome_all(1, &r[1]);
    assert(v == 100 + rank && all[2] == 2);

    MPI_Iallgatherv(&rank, 1, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD, &r[0]);
    flag = 0;
    while (!flag)
        MPI_Testall(1, r, &flag, MPI_STATUSES_IGNORE);
    assert(out[1] == 1);

    for (i = 0; i < 4; i++)
        parts[i] = rank * 10 + i;
    MPI_Ialltoall(parts, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD, &r[0]);
    flag = 0;
    while (!flag)
        MPI_Testany(1, r, &idx, &flag, MPI_STATUS_IGNORE);
    for (i = 0; i < 4; i++)
        assert(out[i] == i * 10 + rank);

    MPI_Ialltoallv(parts, counts, displs, MPI_INT, out, counts, displs, MPI_INT,
                   MPI_COMM_WORLD, &r[0]);
    testsome_all(1, r);
    for (i = 0; i < 4; i++)
        assert(out[i] == i * 10 + rank);
    for (i = 0; i < 4; i++)
        displs[i] = i * (int)sizeof(int);
    MPI_Ialltoallw(parts, counts, displs, types, out, counts, displs, types,
                   MPI_COMM_WORLD, &r[0]);
    testsome_all(1, r);
    for (i = 0; i < 4; i++)
        assert(out[i] == i * 10 + rank);

    MPI_Iscan(&rank, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Iexscan(&rank, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    for (i = 0; i < 4; i++)
        parts[i] = i;
    MPI_Ireduce_scatter(parts, &rs[0], counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]);
    MPI_Ireduce_scatter_block(parts, &rsb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    assert(scan == rank * (rank + 1) / 2);
    if (rank > 0)
        assert(exscan == rank * (rank - 1) / 2);
    assert(rs[0] == 4 * rank && rsb == 4 * rank);

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Iallreduce(&rank, &half_sum, 1, MPI_INT, MPI_SUM, half, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    assert(half_sum == (rank % 2 ? 4 : 2));
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
