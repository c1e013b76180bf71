/* fib-test: nprocs=4 outcome=ok interleavings=1 codes=- */
/* Every rank calls MPI_Scan, MPI_Exscan, MPI_Reduce_scatter and
 * MPI_Reduce_scatter_block in the same order, on MPI_COMM_WORLD and then
 * MPI_Scan on a communicator that MPI_Comm_split made of the odd ranks,
 * checking each prefix and each reduced block. No point-to-point and no
 * wildcard: 1 interleaving, ok. */
#include <assert.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v, pre = -1, in[8], out[2], counts[4] = {1, 2, 0, 1};
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    assert(size == 4);

    v = rank + 1;
    MPI_Scan(&v, &pre, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    assert(pre == (rank + 1) * (rank + 2) / 2);
    MPI_Exscan(&v, &pre, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0)
        assert(pre == rank * (rank + 1) / 2);

    /* Element i of every rank's input is i; blocks of 1, 2, 0, 1. */
    for (int i = 0; i < 8; i++)
        in[i] = i;
    out[0] = out[1] = -1;
    MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 1)
        assert(out[0] == 4 * 1 && out[1] == 4 * 2);
    if (rank == 3)
        assert(out[0] == 4 * 3);
    MPI_Reduce_scatter_block(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    assert(out[0] == 2 * rank && out[1] == 2 * rank + 1);

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Scan(&rank, &pre, 1, MPI_INT, MPI_SUM, half);
    assert(pre == (rank < 2 ? rank : (rank % 2) + rank));
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
